package dev.fencedqueue.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.fencedqueue.config.ResearchConfig;

/**
 * How the built-in simulator recognizes the prompts of a deep research job ({@code fq.research.deep.plan-prompt} and
 * {@code report-prompt}, by the text before their first placeholder) and what it answers them: to a plan prompt,
 * {@code n} sub-questions that read as questions ({@link #subQuestion}), one per line, a deterministic function of the
 * question; to a report prompt, the usual simulated answer ({@link SimulatedAnswer}) to "Deep research: <question>",
 * so that a report is told from a plain answer. Any other prompt is answered as a question.
 *
 * @param planPrefix the plan prompt's text before its first placeholder, or {@code null} to recognize none
 * @param reportPrefix the report prompt's text before its first placeholder, or {@code null} to recognize none
 * @param subQuestions how many sub-questions a plan lists
 */
record SimulatedPrompts(String planPrefix, String reportPrefix, int subQuestions) {

    /** Recognizes no prompt. */
    static final SimulatedPrompts NONE = new SimulatedPrompts(null, null, 0);

    /** Sub-questions about a topic ({@code %s}: the topic, its first word lower-cased when it is a common word). */
    private static final String[] ABOUT_A_TOPIC = {"What is the current state of %s?", "What evidence is there on %s?",
        "What are the main risks and open problems of %s?", "How do the costs compare for %s?",
        "What do practitioners report about %s?", "What changed over the last five years in %s?",
        "Which alternatives compete with %s?", "What is expected next for %s?"};
    /** Sub-questions that narrow a question ({@code %s}: the question without its question mark). */
    private static final String[] NARROWING_A_QUESTION = {"%s, as things stand today?",
        "%s, according to the strongest evidence?", "%s, and what are the main risks and open problems?",
        "%s, and how do the costs compare?", "%s, in the experience of practitioners?",
        "%s, and what changed over the last five years?", "%s, compared with the alternatives?",
        "%s, and what is expected next?"};
    /** Words that start a question, or start a topic without being a proper noun. */
    private static final Set<String> COMMON_FIRST_WORDS = Set.of("how", "what", "why", "which", "when", "where", "who",
        "whom", "whose", "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will",
        "has", "have", "had", "may", "might", "must", "shall", "the", "a", "an", "some", "any", "our", "my", "this",
        "these", "those");
    private static final Set<String> QUESTION_WORDS = Set.of("how", "what", "why", "which", "when", "where", "who",
        "whom", "whose", "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will",
        "has", "have", "had", "may", "might", "must", "shall");
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
        for (int i = 0; i < subQuestions; i++) {
            String line = subQuestion(question, Math.floorMod(question.hashCode(), ABOUT_A_TOPIC.length) + i);
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

    /**
     * @param question the job's question or topic
     * @param aspect which aspect (taken modulo their number)
     * @return a sub-question that reads as one: a question narrowed by an aspect ("How do heat pumps perform in cold
     *         climates, and how do the costs compare?"), or a question about a topic ("What evidence is there on
     *         solid-state batteries?")
     */
    static String subQuestion(String question, int aspect) {
        String text = question.strip().replaceAll("[?.!\\s]+$", "");
        String first = text.split("\\s+", 2)[0];
        String firstWord = first.toLowerCase(Locale.ROOT);
        if (question.strip().endsWith("?") || QUESTION_WORDS.contains(firstWord)) {
            return NARROWING_A_QUESTION[aspect % NARROWING_A_QUESTION.length].formatted(text);
        }
        boolean common = COMMON_FIRST_WORDS.contains(firstWord) && first.substring(1).equals(firstWord.substring(1));
        String topic = common ? firstWord.charAt(0) + text.substring(1) : text;
        return ABOUT_A_TOPIC[aspect % ABOUT_A_TOPIC.length].formatted(topic);
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
