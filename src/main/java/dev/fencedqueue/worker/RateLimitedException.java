package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.Objects;

/**
 * How a run ends that cannot go on yet because a rate limit outside the queue is spent (the LLM budget the fleet
 * shares, a provider's pause): not a failure, BullMQ's {@code RateLimitError}. A processor fails its attempt with it;
 * the worker hands the job back without counting an attempt, to the front of its wait list, and holds the queue's
 * dispatch fleet-wide for {@link #delay()} (BullMQ's {@code Worker.rateLimit}), so that the job holds no worker slot
 * meanwhile, keeps its place, and the next job to start once the hold ends is the one the queue (fair dispatch
 * included) puts first. Its next run is a new epoch, which continues the job ({@code resumeReason}
 * {@code rate-limited}).
 */
public class RateLimitedException extends RuntimeException {

    private final transient Duration delay;

    /**
     * @param delay how long the queue's dispatch is held, positive (a zero or negative delay holds 1 ms)
     * @param reason which limit, in the product's words (for the attempt's span and logs), not {@code null}
     */
    public RateLimitedException(Duration delay, String reason) {
        super(Objects.requireNonNull(reason, "reason"), null, false, false);
        this.delay = delay.isNegative() || delay.isZero() ? Duration.ofMillis(1) : delay;
    }

    /** @return how long the queue's dispatch is held, positive */
    public Duration delay() {
        return delay;
    }
}
