package dev.fencedqueue.queue;

/**
 * A write that Redis applied but too few replicas acknowledged within {@code fq.redis.wait-timeout} (Redis's
 * {@code WAIT}): it may be lost by a failover. The API answers {@code 503}: the caller retries, with the same
 * {@code Idempotency-Key} so that a job that did survive is not added twice.
 */
public class NotReplicatedException extends RedisUnavailableException {

    /**
     * @param wanted replicas asked for
     * @param acknowledged replicas that acknowledged the write
     */
    public NotReplicatedException(int wanted, long acknowledged) {
        super("the write reached " + acknowledged + " of the " + wanted + " replica(s) fq.redis.wait-replicas asks "
                + "for within fq.redis.wait-timeout: it may not survive a failover", null);
    }
}
