package dev.fencedqueue.queue;

import java.util.regex.Pattern;

/**
 * The Redis key layout of one queue. Every key starts with {@code <prefix>:{<queue>}:}, so all keys of a
 * queue share one hash tag and every multi-key script runs on Redis Cluster.
 *
 * <pre>
 * fq:{q}:wait         list   ready jobs (LPUSH in, RPUSH for LIFO; taken from the right with LMPOP)
 * fq:{q}:active       list   running jobs
 * fq:{q}:prioritized  zset   ready jobs with a priority (score: priority * 2^32 + insertion counter)
 * fq:{q}:delayed      zset   jobs waiting for their due time (score: due time, ms, Redis clock)
 * fq:{q}:marker       zset   wakes blocked workers: member '0' (jobs ready), 'delayed' (score: next due time)
 * fq:{q}:completed    zset   finished jobs (score: finish time, ms), for retention
 * fq:{q}:failed       zset   failed and aborted jobs (score: finish time, ms), for retention
 * fq:{q}:stalled      set    active jobs seen by the last stalled-job check
 * fq:{q}:stalled-check string  set PX stalled-interval by whoever ran the check
 * fq:{q}:meta         hash   queue settings (paused, counters)
 * fq:{q}:id           string job id counter
 * fq:{q}:events       stream queue events (waiting, active, progress, completed, failed, ...)
 * fq:{q}:limiter      string jobs started in the current rate-limit window, PX window
 * fq:{q}:revoked      channel job ids whose running worker must stop
 * fq:{q}:job:ID       hash   the job: its fields; its fencingToken (the current epoch), lockToken (the attempt that
 *                            holds it) and lockedUntil (its lock's expiry, ms, Redis clock: renewed while it runs);
 *                            its fields tokens:OUTCOME:attempts|prompt|completion count LLM tokens
 * fq:{q}:job:ID:events stream the job's events
 * fq:{q}:job:ID:abort string set by an operator's abort of a running chunked job, PX abort-flag TTL
 * fq:{q}:single-flight:KEY string the id of the running job that holds the single-flight key
 * fq:{q}:idempotency:KEY string job id, PX idempotency TTL
 * fq:{q}:dedup:ID     string job id, PX deduplication TTL or until the job ends
 * </pre>
 *
 * @param queue the queue name
 * @param prefix the key prefix of the queue, {@code <prefix>:{<queue>}:}
 */
public record QueueKeys(String queue, String prefix) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9._~-]{1,128}");

    /**
     * @param keyPrefix the global key prefix, e.g. {@code fq}
     * @param queue the queue name: 1 to 100 of {@code A-Z a-z 0-9 . _ -}
     * @return the layout of that queue
     * @throws IllegalArgumentException when the queue name is not valid
     */
    public static QueueKeys of(String keyPrefix, String queue) {
        if (queue == null || !NAME.matcher(queue).matches()) {
            throw new IllegalArgumentException("`queue` must be 1 to 100 characters of A-Z a-z 0-9 . _ -, was " + queue);
        }
        return new QueueKeys(queue, keyPrefix + ":{" + queue + "}:");
    }

    /**
     * @param jobId a job id
     * @return whether it is a valid job id: 1 to 128 of {@code A-Z a-z 0-9 . _ ~ -}
     */
    public static boolean isValidJobId(String jobId) {
        return jobId != null && JOB_ID.matcher(jobId).matches();
    }

    public String waitList() {
        return prefix + "wait";
    }

    public String active() {
        return prefix + "active";
    }

    public String prioritized() {
        return prefix + "prioritized";
    }

    public String delayed() {
        return prefix + "delayed";
    }

    public String marker() {
        return prefix + "marker";
    }

    public String completed() {
        return prefix + "completed";
    }

    public String failed() {
        return prefix + "failed";
    }

    public String stalled() {
        return prefix + "stalled";
    }

    public String stalledCheck() {
        return prefix + "stalled-check";
    }

    public String meta() {
        return prefix + "meta";
    }

    public String idCounter() {
        return prefix + "id";
    }

    public String events() {
        return prefix + "events";
    }

    public String revokedChannel() {
        return prefix + "revoked";
    }

    public String job(String jobId) {
        return prefix + "job:" + jobId;
    }

    public String events(String jobId) {
        return job(jobId) + ":events";
    }

    /** @return the abort flag of a chunked job: set while an operator's abort waits for the next chunk boundary */
    public String abortFlag(String jobId) {
        return job(jobId) + ":abort";
    }

    /**
     * @param client a client's address (IPv4 or IPv6 text)
     * @return the counter of the client's current window of the start rate limit
     */
    public String startRateLimit(String client) {
        return prefix + "start-rate:" + client;
    }

    /**
     * @param key a single-flight key (for example a channel name)
     * @return the key that names the running job holding it
     */
    public String singleFlight(String key) {
        return prefix + "single-flight:" + key;
    }
}
