package dev.fencedqueue.simulator;

import java.util.List;

import dev.fencedqueue.config.SimulatorConfig.TrailingAssistant;

/** The built-in simulator's answers, as the oracle of the takeover tests: what an uninterrupted run streams. */
public final class SimulatorAnswers {

    private SimulatorAnswers() {
    }

    /**
     * @param question the job's query
     * @param words the simulator's {@code fq.simulator.answer.words}
     * @return the answer's text as one uninterrupted run of the simulator streams it
     */
    public static String uninterrupted(String question, int words) {
        return String.join("", SimulatedCompletion.tokens(List.<String[]>of(new String[] {"user", question}), words,
                TrailingAssistant.CONTINUE, 0));
    }

    /**
     * What the simulated model streams for a conversation (the simulator's own answer, without its pace).
     *
     * @param messages the conversation, {@code [role, content]} pairs in order, at least one
     * @param words the simulator's {@code fq.simulator.answer.words}
     * @param trailing what the simulated model does with a trailing assistant message
     * @param seamRepeatWords words an instructed continuation repeats first
     * @return the tokens, in order (before {@code max_tokens} applies); throws when the conversation ends with an
     *         assistant message and {@code trailing} is {@link TrailingAssistant#REFUSE}
     */
    public static List<String> tokens(List<String[]> messages, int words, TrailingAssistant trailing,
            int seamRepeatWords) {
        return SimulatedCompletion.tokens(messages, words, trailing, seamRepeatWords);
    }

    /**
     * @param words the simulator's {@code fq.simulator.answer.words}
     * @return the reasoning summary one uninterrupted Responses run of the simulator streams
     */
    public static String uninterruptedReasoning(int words) {
        StringBuilder reasoning = new StringBuilder();
        for (int word = 0; word < words; word += SimulatedResponse.REASONING_EVERY) {
            reasoning.append(word == 0 ? "" : " ").append("Checking source ")
                    .append(word / SimulatedResponse.REASONING_EVERY + 1).append(".");
        }
        return reasoning.toString();
    }
}
