package dev.fencedqueue.llm;

/** The tests' way into what the LLM clients keep package-private. */
public final class LlmTestAccess {

    private LlmTestAccess() {
    }

    /**
     * @param reply what a model replied to {@link ContinuationProbe}'s probe, must not be {@code null}
     * @return whether the probe reads it as a model that continues a trailing assistant message
     */
    public static boolean continuesProbe(String reply) {
        return ContinuationProbe.continues(reply);
    }
}
