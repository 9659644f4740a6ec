package dev.fencedqueue.redis;

import java.time.Duration;

/**
 * Thrown when Redis has no room for a write: its {@code used_memory} passed {@code fq.redis.memory.max-ratio} of
 * {@code maxmemory} (checked before a new job is added), or Redis answered a write with its {@code OOM} error. The API
 * maps it to {@code 503} ({@code redis_full}) with {@code Retry-After}: nothing was stored, and the same request may
 * succeed once Redis has room (finished jobs removed, {@code maxmemory} raised).
 */
public class RedisFullException extends RuntimeException {

    /** How long a client should wait before trying again. */
    public static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    public RedisFullException(String message) {
        super(message);
    }

    /**
     * @param failure a command's failure, must not be {@code null}
     * @return a {@link RedisFullException} when it is (or is caused by) Redis's {@code OOM} error reply ("OOM command
     *         not allowed when used memory > 'maxmemory'", also inside a script's error), else {@code failure} itself
     */
    public static Throwable ifOutOfMemory(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RedisFullException) {
                return t;
            }
            String message = String.valueOf(t.getMessage());
            if (message.startsWith("OOM ") || message.contains("OOM command not allowed")) {
                return new RedisFullException("Redis is full (its maxmemory is reached): it refused the write");
            }
        }
        return failure;
    }
}
