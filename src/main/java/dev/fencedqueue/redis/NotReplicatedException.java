package dev.fencedqueue.redis;

/**
 * A write that Redis applied but that did not become as durable as {@code fq.redis.wait.replicas} and
 * {@code fq.redis.wait.aof} ask within {@code fq.redis.wait.timeout} (Redis's {@code WAIT} or {@code WAITAOF}): a
 * failover, or with {@code wait-aof} a crash, may lose it. The API answers {@code 503} ({@code not_replicated}): the
 * caller retries, with the same {@code Idempotency-Key} so that a job that did survive is not added twice.
 */
public class NotReplicatedException extends RedisUnavailableException {

    /** @param message what was reached, and what was asked for */
    public NotReplicatedException(String message) {
        super(message, null);
    }
}
