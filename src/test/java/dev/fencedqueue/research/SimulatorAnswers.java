package dev.fencedqueue.research;

import java.util.List;

import dev.fencedqueue.config.SimulatorConfig.TrailingAssistant;

/** The built-in simulator's answers, as the oracle of the takeover tests: what an uninterrupted run streams. */
public final class SimulatorAnswers {

    private SimulatorAnswers() {
    }

    /**
     * @param question the job's query
     * @param words the simulator's {@code fq.simulator.answer-words}
     * @return the answer's text as one uninterrupted run of the simulator streams it
     */
    public static String uninterrupted(String question, int words) {
        return String.join("", SimulatedCompletion.tokens(List.<String[]>of(new String[] {"user", question}), words,
                TrailingAssistant.CONTINUE, 0));
    }
}
