package dev.fencedqueue.worker;

import java.time.Duration;

/** Fails an attempt that ran longer than its job's {@code timeout}; its pipeline (and LLM call) was cancelled. */
public class JobTimeoutException extends RuntimeException {

    public JobTimeoutException(String jobId, Duration timeout) {
        super("job `" + jobId + "` timed out after " + timeout);
    }
}
