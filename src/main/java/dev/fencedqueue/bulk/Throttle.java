package dev.fencedqueue.bulk;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * How a chunked job paces itself (predictable load instead of maximum throughput): a pause after every chunk and/or a
 * ceiling on items per second. Set per job at start, changeable while it runs; the runtime reads it right before each
 * chunk. Also the JSON body of {@code PUT .../throttle} and part of a fan-out's.
 *
 * @param pauseBetweenChunksMs pause after each chunk, ms; {@code null} or 0: none
 * @param maxItemsPerSecond ceiling on items written per second, averaged per chunk; {@code null}: none
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Throttle(
        @Min(value = 0, message = "`pauseBetweenChunksMs` must be 0 or more") @Max(value = 3_600_000,
                message = "`pauseBetweenChunksMs` must be at most 3600000 (one hour)") Long pauseBetweenChunksMs,
        @Min(value = 1, message = "`maxItemsPerSecond` must be at least 1") Integer maxItemsPerSecond) {

    /** No throttle: chunks follow each other at once. */
    public static final Throttle NONE = new Throttle(0L, null);

    /**
     * How long to wait after a chunk before the next one.
     *
     * @param items the items the chunk wrote
     * @param took how long the chunk took, from its start to its commit
     * @return the wait, zero or more
     */
    public Duration delayAfter(int items, Duration took) {
        long pause = pauseBetweenChunksMs == null ? 0 : pauseBetweenChunksMs;
        long rateWait = 0;
        if (maxItemsPerSecond != null && maxItemsPerSecond > 0) {
            long budgetNanos = items * 1_000_000_000L / maxItemsPerSecond;
            rateWait = Math.max(0, (budgetNanos - took.toNanos()) / 1_000_000);
        }
        return Duration.ofMillis(Math.max(pause, rateWait));
    }

    /** @return this throttle with {@code null} pause read as 0 */
    public Throttle normalized() {
        return pauseBetweenChunksMs == null ? new Throttle(0L, maxItemsPerSecond) : this;
    }
}
