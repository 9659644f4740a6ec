package dev.fencedqueue.simulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.fencedqueue.config.SimulatorConfig.TrailingAssistant;
import dev.fencedqueue.llm.ChatCompletionsClient;

/**
 * What the simulated chat model streams for a conversation, token by token. The question is the first user message;
 * its answer is {@link SimulatedAnswer} (or, for {@link ChatCompletionsClient#PROBE_QUESTION}, the words asked for),
 * streamed as words with the space before each. A conversation that ends with an assistant message is continued per
 * {@link TrailingAssistant}; one in which an assistant message is followed by a user message (an instruction to
 * continue) goes on after that assistant message, first repeating its last {@code seamRepeatWords} words. A
 * continuation goes on exactly after the partial answer when the partial answer is a prefix of the full one, even in
 * the middle of a word; otherwise the model answers from the start.
 */
final class SimulatedCompletion {

    private SimulatedCompletion() {
    }

    /** The simulated model refuses the conversation ({@code 400}). */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * @param messages the conversation, {@code [role, content]} pairs in order, at least one
     * @param answerWords words of a full answer ({@code fq.simulator.answer.words})
     * @param trailing what to do with a trailing assistant message
     * @param seamRepeatWords words an instructed continuation repeats first
     * @return the tokens to stream, in order (before {@code max_tokens} applies)
     * @throws Refused when the conversation ends with an assistant message and {@code trailing} is
     *         {@link TrailingAssistant#REFUSE}
     */
    static List<String> tokens(List<String[]> messages, int answerWords, TrailingAssistant trailing,
            int seamRepeatWords) {
        return tokens(messages, answerWords, trailing, seamRepeatWords, SimulatedPrompts.NONE);
    }

    /**
     * As {@link #tokens(List, int, TrailingAssistant, int)}, answering a deep research job's prompts as
     * {@code prompts} says.
     *
     * @param prompts the prompts the simulator recognizes, must not be {@code null}
     * @return the tokens to stream, in order (before {@code max_tokens} applies)
     */
    static List<String> tokens(List<String[]> messages, int answerWords, TrailingAssistant trailing,
            int seamRepeatWords, SimulatedPrompts prompts) {
        String question = "";
        String partial = null;
        boolean seenQuestion = false;
        for (String[] message : messages) {
            if ("user".equals(message[0]) && !seenQuestion) {
                question = message[1] == null ? "" : message[1];
                seenQuestion = true;
            } else if ("assistant".equals(message[0]) && seenQuestion) {
                partial = message[1] == null ? "" : message[1];
            }
        }
        List<String> answer = answer(question, answerWords, prompts);
        String last = messages.get(messages.size() - 1)[0];
        if (partial == null || "system".equals(last)) {
            return answer;
        }
        if (trailing == TrailingAssistant.REFUSE_ALL) {
            throw new Refused("This model does not accept an assistant message in the conversation.");
        }
        if ("assistant".equals(last)) {
            return switch (trailing) {
                case REFUSE, REFUSE_ALL -> throw new Refused("This model does not support assistant message prefill: "
                        + "the conversation must end with a user message.");
                case NEW_TURN -> answer;
                case CONTINUE -> after(answer, partial);
            };
        }
        List<String> tokens = new ArrayList<>(repeatedWords(partial, seamRepeatWords));
        tokens.addAll(after(answer, partial));
        return tokens;
    }

    private static List<String> answer(String question, int answerWords, SimulatedPrompts prompts) {
        List<String> words = question.startsWith(ChatCompletionsClient.PROBE_QUESTION)
                ? Arrays.asList(question.substring(ChatCompletionsClient.PROBE_QUESTION.length()).trim().split(" +"))
                : prompts.words(question, answerWords);
        List<String> tokens = new ArrayList<>(words.size());
        for (int i = 0; i < words.size(); i++) {
            tokens.add(i == 0 ? words.get(i) : " " + words.get(i));
        }
        return tokens;
    }

    /** @return the tokens of the answer after {@code partial}, or the whole answer when it does not start so */
    private static List<String> after(List<String> answer, String partial) {
        String full = String.join("", answer);
        if (!full.startsWith(partial)) {
            return answer;
        }
        String rest = full.substring(partial.length());
        return rest.isEmpty() ? List.of() : List.of(rest.split("(?= )"));
    }

    private static List<String> repeatedWords(String partial, int count) {
        String[] words = partial.split("(?= )");
        return List.of(words).subList(Math.max(0, words.length - count), words.length);
    }
}
