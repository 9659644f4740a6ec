package dev.fencedqueue.research;

import java.util.HashMap;
import java.util.Map;

import dev.fencedqueue.llm.ContinuationProbe;
import dev.fencedqueue.testing.WorkersOffProfile;

/**
 * No worker of the service's own, OpenAI's protocol to the simulator, and answers long enough (1,500 words at 10 ms,
 * about 15 s) for two takeovers in the middle of one on a slow machine; {@code fq.llm.resume.mode} at its default
 * ({@code auto}) and the simulator continuing a trailing assistant message; a job survives five stalls (BullMQ's
 * default of one would fail a job at its second takeover). Subclasses change the simulator's
 * behaviour ({@link #simulator()}).
 */
public class OpenAiResumeProfile extends WorkersOffProfile {

    /** Words of a simulated answer. */
    public static final int ANSWER_WORDS = 1500;

    @Override
    protected final Map<String, String> more() {
        Map<String, String> config = new HashMap<>(Map.of("fq.llm.protocol", "openai",
                "fq.simulator.answer.words", Integer.toString(ANSWER_WORDS),
                "fq.simulator.answer.token-interval", "10ms",
                "fq.llm.stream.delta-interval", "100ms",
                "fq.worker.stalled.max-count", "5"));
        config.putAll(simulator());
        return config;
    }

    /** @return more settings of the simulator (or of the LLM client), none by default */
    protected Map<String, String> simulator() {
        return Map.of();
    }

    /**
     * The simulator refuses a trailing assistant message and repeats three words at an instructed continuation's seam.
     * A model name of its own: the service remembers per model what the probe found out
     * ({@link ContinuationProbe}), and these settings may be switched on an application that already asked the
     * simulator as another model ({@code RuntimeProfile}).
     */
    public static class ByInstruction extends OpenAiResumeProfile {
        @Override
        protected Map<String, String> simulator() {
            return Map.of("fq.simulator.continuation.trailing-assistant", "refuse", "fq.simulator.continuation.repeat-words", "3",
                    "fq.llm.model", "simulator-refusing-trailing-assistant");
        }
    }

    /** The simulator refuses every continuation: a takeover starts the answer over. A model name of its own, too. */
    public static class NoContinuation extends OpenAiResumeProfile {
        @Override
        protected Map<String, String> simulator() {
            return Map.of("fq.simulator.continuation.trailing-assistant", "refuse-all", "fq.llm.model", "simulator-refusing-all");
        }
    }

    /**
     * OpenAI's Responses API in background mode, to the simulator; a response stuck in {@code queued} is given up after
     * 2 s, polled every 200 ms.
     */
    public static class Responses extends OpenAiResumeProfile {
        @Override
        protected Map<String, String> simulator() {
            return Map.of("fq.llm.protocol", "responses", "fq.llm.resume.queued-timeout", "2s",
                    "fq.llm.resume.poll-interval", "200ms");
        }
    }
}
