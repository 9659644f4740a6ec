package dev.fencedqueue.simulator;

import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.config.ResearchConfig;

/**
 * How the built-in simulator recognizes the prompts of a deep research job ({@code fq.research.deep.plan-prompt} and
 * {@code report-prompt}, by the text before their first placeholder) and what it answers them: to a plan prompt,
 * {@code n} sub-questions as a model writes them ({@link SimulatedSubQuestions}), one per line, a deterministic function
 * of the question; to a report prompt, the usual simulated answer ({@link SimulatedAnswer}) to "Deep research: <question>",
 * so that a report is told from a plain answer. Any other prompt is answered as a question.
 *
 * @param planPrefix the plan prompt's text before its first placeholder, or {@code null} to recognize none
 * @param reportPrefix the report prompt's text before its first placeholder, or {@code null} to recognize none
 * @param subQuestions how many sub-questions a plan lists
 */
record SimulatedPrompts(String planPrefix, String reportPrefix, int subQuestions) {

    /** Recognizes no prompt. */
    static final SimulatedPrompts NONE = new SimulatedPrompts(null, null, 0);

    private static final String QUESTION = "Question: ";

    /**
     * @param deep the configuration the service's deep research jobs use
     * @return the prompts of that configuration
     */
    static SimulatedPrompts of(ResearchConfig.Deep deep) {
        return new SimulatedPrompts(prefix(deep.planPrompt()), prefix(deep.reportPrompt()), deep.subQuestions());
    }

    /** @return whether {@code prompt} asks for a plan */
    boolean isPlan(String prompt) {
        return planPrefix != null && prompt.startsWith(planPrefix);
    }

    /**
     * @param prompt a prompt that is not a plan prompt
     * @return what the simulator answers about: "Deep research: <question>" for a report prompt, else the prompt
     */
    String subject(String prompt) {
        return reportPrefix != null && prompt.startsWith(reportPrefix) ? "Deep research: " + question(prompt) : prompt;
    }

    /**
     * @param prompt the question the simulator was asked, must not be {@code null}
     * @param count most words of an answer to a question or a report (a plan is whole)
     * @return the words of its answer, each a token the simulator streams
     */
    List<String> words(String prompt, int count) {
        if (!isPlan(prompt)) {
            return SimulatedAnswer.words(subject(prompt), count);
        }
        String question = question(prompt);
        List<String> words = new ArrayList<>();
        for (String line : SimulatedSubQuestions.of(question, subQuestions)) {
            List<String> lineWords = List.of(line.split(" "));
            if (words.isEmpty()) {
                words.addAll(lineWords);
            } else { // the line break is attached to the last word of the line before
                words.set(words.size() - 1, words.get(words.size() - 1) + "\n" + lineWords.get(0));
                words.addAll(lineWords.subList(1, lineWords.size()));
            }
        }
        return words;
    }

    /** @return the whole plan a plan prompt gets, its lines joined by line breaks */
    String plan(String prompt) {
        return String.join(" ", words(prompt, 0));
    }

    /** @return the line after {@code Question: } in the prompt, else the whole prompt */
    private static String question(String prompt) {
        int at = prompt.indexOf(QUESTION);
        if (at < 0) {
            return prompt;
        }
        int end = prompt.indexOf('\n', at);
        return prompt.substring(at + QUESTION.length(), end < 0 ? prompt.length() : end).strip();
    }

    private static String prefix(String template) {
        int at = template.indexOf('{');
        String prefix = at < 0 ? template : template.substring(0, at);
        return prefix.isBlank() ? null : prefix;
    }
}
