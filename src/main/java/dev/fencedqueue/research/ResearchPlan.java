package dev.fencedqueue.research;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.llm.LlmException;

/**
 * The plan of a deep research job: its sub-questions, each researched by one child job whose id is
 * {@code <parentId>:<key>}, keys {@code q1}, {@code q2}, ... in the plan's order. Also the prompts that ask for a plan
 * and for the report ({@code fq.research.deep.plan-prompt}, {@code report-prompt}), and the shape of the {@code plan}
 * event that announces it.
 *
 * @param subQuestions the sub-questions in order, not empty, at most {@link ResearchConfig.Deep#MAX_SUB_QUESTIONS}
 */
record ResearchPlan(List<SubQuestion> subQuestions) {

    /** The event type that announces the plan. */
    static final String EVENT = "plan";

    /** A list marker that an LLM puts before a line: {@code 1.}, {@code 2)}, {@code -}, {@code *}, {@code •}. */
    private static final Pattern MARKER = Pattern.compile("^\\s*(?:\\d+[.)]|[-*•])\\s*");

    /**
     * @param key the child's key, {@code q<n>}
     * @param jobId the child's job id, {@code <parentId>:<key>}
     * @param query the sub-question, the child's query
     */
    record SubQuestion(String key, String jobId, String query) {
    }

    /**
     * @param deep the configuration
     * @param query the job's question
     * @return the prompt that asks for the plan
     */
    static String planPrompt(ResearchConfig.Deep deep, String query) {
        return deep.planPrompt().replace("{n}", Integer.toString(deep.subQuestions())).replace("{query}", query);
    }

    /**
     * Reads a plan from the LLM's answer: its non-blank lines, list markers stripped, repeats dropped, cut to
     * {@code max} and to {@link ResearchRequest#MAX_QUERY_LENGTH} characters each.
     *
     * @param parentId the deep research job's id
     * @param answer the LLM's answer to the plan prompt
     * @param max most sub-questions
     * @return the plan
     * @throws LlmException when the answer holds no sub-question (the attempt fails and is retried)
     */
    static ResearchPlan parse(String parentId, String answer, int max) {
        List<String> lines = lines(answer, max);
        if (lines.isEmpty()) {
            throw new LlmException("the LLM's plan holds no sub-question");
        }
        List<SubQuestion> subQuestions = new ArrayList<>();
        for (String question : lines) {
            String key = "q" + (subQuestions.size() + 1);
            subQuestions.add(new SubQuestion(key, parentId + ":" + key, question));
        }
        return new ResearchPlan(List.copyOf(subQuestions));
    }

    /**
     * The sub-questions of a plan's text, as {@link #parse} reads them; of a plan still being written, its complete
     * lines give the sub-questions the whole plan will start with.
     *
     * @param answer the LLM's answer to the plan prompt, or the part of it written so far
     * @param max most sub-questions
     * @return its non-blank lines, list markers stripped, repeats dropped, cut to {@code max} and to
     *         {@link ResearchRequest#MAX_QUERY_LENGTH} characters each; empty when it holds none
     */
    static List<String> lines(String answer, int max) {
        Set<String> lines = new LinkedHashSet<>();
        for (String line : answer.split("\\R")) {
            String question = MARKER.matcher(line).replaceFirst("").strip();
            if (!question.isEmpty() && lines.size() < max) {
                lines.add(question.length() > ResearchRequest.MAX_QUERY_LENGTH
                        ? question.substring(0, ResearchRequest.MAX_QUERY_LENGTH) : question);
            }
        }
        return List.copyOf(lines);
    }

    /**
     * @param data the data of a {@code plan} event, as {@link #eventData} shapes it
     * @return the plan it announced
     */
    static ResearchPlan of(JsonNode data) {
        List<SubQuestion> subQuestions = new ArrayList<>();
        for (JsonNode node : data.path("subQuestions")) {
            subQuestions.add(new SubQuestion(node.path("key").asText(), node.path("jobId").asText(),
                    node.path("query").asText()));
        }
        return new ResearchPlan(List.copyOf(subQuestions));
    }

    /**
     * @return the fields of the {@code plan} event: {@code message}, {@code subQuestions} ({@code [{key, jobId,
     *         query}]}, the children a page follows)
     */
    ObjectNode eventData() {
        ObjectNode data = JsonNodeFactory.instance.objectNode()
                .put("message", "plan: " + subQuestions.size() + " sub-question" + (subQuestions.size() == 1 ? "" : "s"));
        subQuestions.forEach(sub -> data.withArray("subQuestions").addObject().put("key", sub.key())
                .put("jobId", sub.jobId()).put("query", sub.query()));
        return data;
    }

    /**
     * @param deep the configuration
     * @param query the job's question
     * @param findings child job id -> its answer's text (cut to {@code fq.research.deep.finding-chars}), or
     *        {@code null} for a child that failed
     * @return the prompt that asks for the report: each sub-question with its finding, in the plan's order
     */
    String reportPrompt(ResearchConfig.Deep deep, String query, Map<String, String> findings) {
        StringBuilder text = new StringBuilder();
        for (SubQuestion sub : subQuestions) {
            String finding = findings.get(sub.jobId());
            if (finding != null && finding.length() > deep.findingChars()) {
                finding = finding.substring(0, deep.findingChars()) + " [...]";
            }
            text.append("### ").append(sub.query()).append("\n\n")
                    .append(finding == null ? "(no finding: this sub-question could not be researched)" : finding)
                    .append("\n\n");
        }
        return deep.reportPrompt().replace("{query}", query).replace("{findings}", text.toString().strip());
    }
}
