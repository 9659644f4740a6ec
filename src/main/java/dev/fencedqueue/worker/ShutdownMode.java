package dev.fencedqueue.worker;

/** What a worker does with its running jobs when it stops. */
public enum ShutdownMode {
    /**
     * Cancel the running jobs (their LLM calls close) and hand them back to the queue at once, without
     * counting an attempt, so that another instance resumes them in about a second.
     */
    HAND_BACK,
    /** Let the running jobs finish for up to the drain timeout, then hand back those still running. */
    DRAIN
}
