package dev.fencedqueue.queue;

import java.util.Set;
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
 * fq:{q}:waiting-children zset parents waiting for their children to end (score: since when, ms)
 * fq:{q}:parent-notices hash  child job id -> how it ended, JSON, until delivered to its parent (maybe of another
 *                            queue) by FlowRelay
 * fq:{q}:pending-children hash child job key -> its spec, JSON, until FlowProducer added it (maybe in another queue)
 * fq:{q}:marker       zset   wakes blocked workers: member '0' (jobs ready), 'delayed' (score: next due time)
 * fq:{q}:completed    zset   finished jobs (score: finish time, ms), for retention
 * fq:{q}:failed       zset   failed and aborted jobs (score: finish time, ms), for retention
 * fq:{q}:stalled      set    active jobs seen by the last stalled-job check
 * fq:{q}:stalled-check string  set PX stalled-interval by whoever ran the check
 * fq:{q}:schedulers   hash   job scheduler id -> spec (JSON)
 * fq:{q}:schedules    zset   job scheduler id -> next tick (ms since the epoch)
 * fq:{q}:scheduler:ID hash   a job scheduler's state: ticks, lastJobId, lastTick, paused, ended, skipped
 * fq:{q}:meta         hash   queue settings (paused, counters)
 * fq:{q}:id           string job id counter
 * fq:{q}:events       stream queue events (waiting, active, progress, completed, failed, ...)
 * fq:{q}:limiter      string jobs started in the current rate-limit window, PX window
 * fq:{q}:revoked      channel job ids whose running worker must stop
 * fq:{q}:job:ID       hash   the job: its fields; its fencingToken (the current epoch), lockToken (the attempt that
 *                            holds it) and lockedUntil (its lock's expiry, ms, Redis clock: renewed while it runs);
 *                            its fields tokens:OUTCOME:attempts|prompt|completion count LLM tokens
 *                            its fields parentKey (a child's parent's job key), parentPolicy, hasChildren
 * fq:{q}:job:ID:events stream the job's events
 * fq:{q}:job:ID:children set every child job key the job ever had (flows)
 * fq:{q}:job:ID:dependencies set its children that have not ended yet
 * fq:{q}:job:ID:processed hash child job key -> return value (JSON) of each completed child
 * fq:{q}:job:ID:failed hash  child job key -> reason, of each failed child it ignored or that failed it
 * fq:{q}:parent-aborts hash  aborted parent id -> reason, until its children's abort finished
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
    private static final Pattern DERIVED_JOB_ID = Pattern.compile("[A-Za-z0-9._~-]+(:[A-Za-z0-9._~-]+)*");
    /** Suffixes of a job's own keys, never the last part of a derived job id (see {@link #isValidJobId}). */
    private static final Set<String> KEY_SUFFIXES = Set.of("events", "abort", "children",
            "dependencies", "processed", "failed");
    /** Longest derived job id (children of children, scheduled jobs): characters. */
    public static final int MAX_DERIVED_JOB_ID = 400;

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
     * @return whether it is a job id a producer may choose: 1 to 128 of {@code A-Z a-z 0-9 . _ ~ -}
     */
    public static boolean isValidJobId(String jobId) {
        return jobId != null && JOB_ID.matcher(jobId).matches();
    }

    /**
     * @param jobId a job id
     * @return whether it names a job: a valid job id ({@link #isValidJobId}), or one the queue derives from another
     *         (a flow's child {@code <parentId>:<key>}): parts of 1 to 128 of {@code A-Z a-z 0-9 . _ ~ -} joined by
     *         {@code :}, at most
     *         {@link #MAX_DERIVED_JOB_ID} characters, no part after the first being a suffix of a job's own keys
     *         ({@code events}, {@code abort}, {@code children}, ...), so that no job id names another job's key
     */
    public static boolean isJobId(String jobId) {
        if (isValidJobId(jobId)) {
            return true;
        }
        if (jobId == null || jobId.length() > MAX_DERIVED_JOB_ID || !DERIVED_JOB_ID.matcher(jobId).matches()) {
            return false;
        }
        String[] parts = jobId.split(":");
        for (int i = 0; i < parts.length; i++) {
            if (parts[i].length() > 128 || i > 0 && KEY_SUFFIXES.contains(parts[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param key a child key given by a producer or a processor
     * @return whether it can be the last part of a derived job id: 1 to 64 of {@code A-Z a-z 0-9 . _ ~ -}, not a
     *         suffix of a job's own keys
     */
    public static boolean isValidChildKey(String key) {
        return key != null && key.length() <= 64 && JOB_ID.matcher(key).matches() && !KEY_SUFFIXES.contains(key);
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

    /**
     * @return the sorted set of the tenants with jobs ready to run, scored by weighted usage, while fair dispatch
     *         is under way (a tenant other than {@code default} has jobs ready; {@code fairShare.lua})
     */
    public String tenantsReady() {
        return prefix + "tenants:ready";
    }

    /** @return the hash of each tenant's dispatch weight (tenant id -> weight), in this queue's hash slot */
    public String tenantWeights() {
        return prefix + "tenants:weight";
    }

    /** @return the hash of each tenant's rate limit (tenant id -> {@code <max>:<window ms>}), in this queue's hash slot */
    public String tenantRates() {
        return prefix + "tenants:rate";
    }

    /** @return the set of the tenants held out of fair dispatch at their concurrency limit */
    public String tenantsCapped() {
        return prefix + "tenants:capped";
    }

    /** @return the hash of each tenant's concurrency limit (tenant id -> most running jobs), in this queue's hash slot */
    public String tenantLimits() {
        return prefix + "tenants:concurrency";
    }

    /**
     * @param tenant a tenant id other than {@code default} (whose ready jobs are in {@link #waitList()})
     * @return the wait list of the tenant's ready jobs without a priority
     */
    public String tenantWaitList(String tenant) {
        return prefix + "tenant:" + tenant + ":wait";
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

    public String waitingChildren() {
        return prefix + "waiting-children";
    }

    public String parentNotices() {
        return prefix + "parent-notices";
    }

    /**
     * @return the hash of aborted parents whose children's abort has not finished: job id -> reason (written by the
     *         abort, removed once every child was aborted; the flow sweep finishes what a crash left)
     */
    public String parentAborts() {
        return prefix + "parent-aborts";
    }

    /** @return the hash of specs of children whose add has not finished: child id -> spec (JSON) */
    public String pendingChildren() {
        return prefix + "pending-children";
    }

    /** @return job schedulers: id -> spec (JSON) */
    public String schedulers() {
        return prefix + "schedulers";
    }

    /** @return job schedulers' next ticks: id -> tick, ms since the epoch (absent while paused or ended) */
    public String schedules() {
        return prefix + "schedules";
    }

    /** @return a job scheduler's state: ticks, lastJobId, lastTick, paused, ended, skipped, skippedBecause */
    public String schedulerState(String schedulerId) {
        return prefix + "scheduler:" + schedulerId;
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

    /** @return every child job key the job ever had */
    public String children(String jobId) {
        return job(jobId) + ":children";
    }

    /** @return the job's children that have not ended yet */
    public String dependencies(String jobId) {
        return job(jobId) + ":dependencies";
    }

    /** @return child job key -> return value of each completed child */
    public String processed(String jobId) {
        return job(jobId) + ":processed";
    }

    /** @return child job key -> reason of each failed child the job ignored or that failed it */
    public String failedChildren(String jobId) {
        return job(jobId) + ":failed";
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
     * @param periodId a calendar period's id ({@code TokenQuota.Period#id}: {@code day:2026-11-27}, {@code month:2026-11})
     * @return the hash of the LLM tokens each tenant's jobs of this queue spent in that period (tenant id -> tokens)
     */
    public String tenantTokens(String periodId) {
        return prefix + "tenant-tokens:" + periodId;
    }

    /**
     * @param periodId a calendar period's id, as for {@link #tenantTokens}
     * @return the hash of what the LLM tokens each tenant's jobs of this queue spent in that period cost (tenant id ->
     *         micro-units of the currency of {@code fq.llm.price.*})
     */
    public String tenantCost(String periodId) {
        return prefix + "tenant-cost:" + periodId;
    }

    /**
     * @param key a single-flight key (for example a channel name)
     * @return the key that names the running job holding it
     */
    public String singleFlight(String key) {
        return prefix + "single-flight:" + key;
    }
}
