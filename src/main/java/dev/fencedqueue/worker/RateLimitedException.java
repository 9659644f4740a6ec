package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.Objects;

/**
 * How a run ends that cannot go on yet because a rate limit outside the queue is spent (the LLM budget the fleet
 * shares, a provider's pause): not a failure, BullMQ's {@code RateLimitError}. A processor fails its attempt with it;
 * the worker hands the job back without counting an attempt, to wait {@link #delay()} in the delayed set and then go
 * to the front of the wait list, so that it holds no worker slot meanwhile and keeps its place. Its next run is a new
 * epoch, which continues the job ({@code resumeReason} {@code rate-limited}).
 */
public class RateLimitedException extends RuntimeException {

    private final transient Duration delay;

    /**
     * @param delay how long the job waits before it may run again, positive (a zero or negative delay waits 1 ms)
     * @param reason which limit, in the product's words (for the attempt's span and logs), not {@code null}
     */
    public RateLimitedException(Duration delay, String reason) {
        super(Objects.requireNonNull(reason, "reason"), null, false, false);
        this.delay = delay.isNegative() || delay.isZero() ? Duration.ofMillis(1) : delay;
    }

    /** @return how long the job waits before it may run again, positive */
    public Duration delay() {
        return delay;
    }
}
