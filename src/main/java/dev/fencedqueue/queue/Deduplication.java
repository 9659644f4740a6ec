package dev.fencedqueue.queue;

import java.time.Duration;

/**
 * BullMQ's deduplication: while a job added with this id is live (or, with a {@code ttl}, during the
 * ttl), adding another job with the same id adds nothing and returns the live job's id.
 *
 * @param id the deduplication id, 1 to 255 characters
 * @param ttl how long adds are ignored, or {@code null} until the job ends (completed, failed, aborted or
 *        removed)
 */
public record Deduplication(String id, Duration ttl) {

    public Deduplication {
        if (id == null || id.isBlank() || id.length() > 255) {
            throw new IllegalArgumentException("`deduplication.id` must be 1 to 255 characters");
        }
        if (ttl != null && (ttl.isNegative() || ttl.isZero())) {
            throw new IllegalArgumentException("`deduplication.ttl` must be positive");
        }
    }
}
