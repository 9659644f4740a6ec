package dev.fencedqueue.api.admin;

import java.time.Duration;

/**
 * A queue's fleet-wide limits, enforced inside Redis when jobs are activated; also the body of
 * {@code PUT /admin/queues/{queue}/limits}, where a {@code null} (or absent) limit is removed.
 *
 * @param globalConcurrency most jobs active at once across all workers, or {@code null} for no cap
 * @param rateLimit most job starts per window across all workers, or {@code null} for no limit
 */
public record QueueLimits(Integer globalConcurrency, RateLimit rateLimit) {

    /**
     * A rate limit.
     *
     * @param max job starts per window, at least 1
     * @param duration the window: {@code 1m}, {@code 30s}, {@code 500ms}, {@code PT1M}, or a number of
     *        seconds; answered as ISO-8601 ({@code PT1M})
     * @param durationMs the window in milliseconds (answers only; ignored in requests)
     */
    public record RateLimit(Integer max, String duration, Long durationMs) {

        static RateLimit of(int max, Duration window) {
            return new RateLimit(max, window.toString(), window.toMillis());
        }
    }
}
