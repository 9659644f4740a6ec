package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.RedisUnavailableException;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;

/**
 * The producer side of one queue (BullMQ's {@code Queue}): add jobs, read them, abort them, pause the
 * queue, set its global limits, count and list its jobs, follow its events; {@link #maintenance()} removes,
 * retries and cleans. Obtain instances from {@link Queues}. Every state change is one Lua script; every
 * method is non-blocking and fails with {@link RedisUnavailableException} when Redis cannot be reached.
 */
public class JobQueue {

    private final QueueKeys keys;
    private final JobAdder adder;
    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final JobArchive archive;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    private final QueueMaintenance maintenance;
    private final AbortFollowUp abortFollowUp;
    private final JobListing listing;
    private final ClientStarts clientStarts;

    /**
     * @param keys the queue's key layout
     * @param adder adds its jobs
     * @param scripts the script registry
     * @param redis the shared connection
     * @param archive where finished jobs go once Redis no longer keeps them
     * @param maxStreamLength maximum length of a job event stream, entries
     * @param maxQueueEvents maximum length of the queue event stream, entries
     * @param abortFollowUp what follows the abort of a job in a flow
     */
    JobQueue(QueueKeys keys, JobAdder adder, LuaScripts scripts, SharedConnection redis, JobArchive archive,
            int maxStreamLength, int maxQueueEvents, AbortFollowUp abortFollowUp) {
        this.keys = keys;
        this.adder = adder;
        this.scripts = scripts;
        this.redis = redis;
        this.archive = archive;
        this.maxStreamLength = maxStreamLength;
        this.maxQueueEvents = maxQueueEvents;
        this.listing = new JobListing(keys, scripts, redis, archive, this::isPaused);
        this.maintenance = new QueueMaintenance(keys, scripts, maxQueueEvents);
        this.clientStarts = new ClientStarts(keys, scripts);
        this.abortFollowUp = abortFollowUp;
    }

    /** @return the queue name */
    public String name() {
        return keys.queue();
    }

    /** @return the queue's key layout */
    public QueueKeys keys() {
        return keys;
    }

    /** @return removal, retry, clean, drain and obliterate */
    public QueueMaintenance maintenance() {
        return maintenance;
    }

    /** @return the starts of jobs per client, counted in fixed windows shared by the fleet */
    public ClientStarts clientStarts() {
        return clientStarts;
    }

    /**
     * Adds a job (BullMQ's {@code Queue.add}). When {@code options.jobId()} names an existing job, or
     * {@code options.idempotencyKey()} was used within its time to live for the same name and data, or a job with the
     * same deduplication id is live, nothing is added and the existing job's id is returned.
     *
     * @param name the job name, must not be blank
     * @param data the job's data, serialized to JSON with Jackson; may be {@code null}
     * @param options the job options, must not be {@code null}
     * @return the job id and whether the job was created; fails with {@link IdempotencyKeyReusedException} when the
     *         idempotency key was used within its time to live for another name or data (nothing is added)
     * @throws IllegalArgumentException when {@code name} is blank, {@code options} is {@code null} or
     *         {@code data} cannot be serialized
     */
    public Uni<AddResult> add(String name, Object data, JobOptions options) {
        return adder.runSent(keys, traceParent -> adder.args(keys, name, data, options, "", AddJobArgs.NO_PARENT_POLICY,
                "", "", traceParent));
    }

    /**
     * Reads a job.
     *
     * @param jobId the job id, must not be {@code null}
     * @return the job, or {@code null} when the queue has no such job
     */
    public Uni<Job> getJob(String jobId) {
        return listing.job(jobId);
    }

    /**
     * Reads a job that must exist.
     *
     * @param jobId the job id
     * @return the job; fails with {@link JobNotFoundException} when there is none
     */
    public Uni<Job> requireJob(String jobId) {
        return getJob(jobId).onItem().ifNull().failWith(() -> new JobNotFoundException(keys.queue(), jobId));
    }

    /**
     * Aborts a job: an intended stop that is never retried. A job that has not started (or waits for its
     * next attempt, or for its children) leaves the queue; a running job's worker is told to stop and closes its LLM
     * call. A flow's parent aborts its children that have not ended (in their queues); a child tells its parent.
     * Either way the job ends {@code aborted} and its event stream ends with one {@code aborted} event.
     *
     * @param jobId the job id, must not be {@code null}
     * @param reason why, shown to readers, must not be {@code null}
     * @return the state the job was in; fails with {@link JobNotFoundException} when there is no such
     *         job and with {@link JobFinishedException} when it already ended
     */
    public Uni<AbortResult> abort(String jobId, String reason) {
        if (!QueueKeys.isJobId(jobId)) {
            return Uni.createFrom().failure(new JobNotFoundException(keys.queue(), jobId));
        }
        return scripts.run(new AbortJobArgs(keys, jobId, reason, maxStreamLength, maxQueueEvents))
                .map(reply -> new AbortResult(jobId, ScriptErrors.stateOrThrow(LuaScript.ABORT_JOB, keys.queue(), jobId,
                        reply)))
                // Not in Redis: a job that moved to the archive has ended; say so (409), not that it never was (404).
                .onFailure(JobNotFoundException.class).recoverWithUni(notFound -> archive.find(keys.queue(), jobId)
                        .map(archived -> {
                            throw archived.<RuntimeException>map(job -> new JobFinishedException(keys.queue(), jobId,
                                    job.job().state())).orElse((JobNotFoundException) notFound);
                        }))
                .call(() -> abortFollowUp.aborted(keys, jobId, reason));
    }

    /**
     * Pauses the queue for every worker of the fleet: no job is activated until {@link #resume()}; running
     * jobs go on. Appends a {@code paused} queue event.
     *
     * @return {@code true} when the queue was running, {@code false} when it was already paused
     */
    public Uni<Boolean> pause() {
        return setPaused(true);
    }

    /**
     * Resumes a paused queue and wakes blocked workers. Appends a {@code resumed} queue event.
     *
     * @return {@code true} when the queue was paused, {@code false} when it was already running
     */
    public Uni<Boolean> resume() {
        return setPaused(false);
    }

    /** @return whether the queue is paused */
    public Uni<Boolean> isPaused() {
        return redis.send(Request.cmd(Command.HEXISTS).arg(keys.meta()).arg("paused")).map(r -> r.toInteger() == 1);
    }

    /**
     * Caps the number of jobs active at the same time across all workers of the fleet, enforced inside
     * Redis at activation.
     *
     * @param concurrency the cap, at least 1, or {@code null} to remove it
     * @return completes when set (blocked workers are woken, so a raised or lifted cap applies at once)
     * @throws IllegalArgumentException when {@code concurrency} is below 1
     */
    public Uni<Void> setGlobalConcurrency(Integer concurrency) {
        if (concurrency != null && concurrency < 1) {
            throw new IllegalArgumentException("`concurrency` must be at least 1, was " + concurrency);
        }
        Request change = concurrency == null ? Request.cmd(Command.HDEL).arg(keys.meta()).arg("concurrency")
                : Request.cmd(Command.HSET).arg(keys.meta()).arg("concurrency").arg(concurrency);
        return redis.send(change).chain(this::wakeWorkers);
    }

    /**
     * Limits how many jobs start per time window across all workers of the fleet (for example an LLM's
     * rate limit), enforced inside Redis at activation; a worker that meets the limit waits until the
     * window ends.
     *
     * @param max jobs per window, at least 1, or {@code null} to remove the limit
     * @param duration the window, at least 1 ms (ignored when {@code max} is {@code null})
     * @return completes when set (blocked workers are woken, so a lifted limit applies at once)
     * @throws IllegalArgumentException when {@code max} is below 1 or {@code duration} is not positive
     */
    public Uni<Void> setRateLimit(Integer max, Duration duration) {
        if (max != null && (max < 1 || duration == null || duration.toMillis() < 1)) {
            throw new IllegalArgumentException("`max` must be at least 1 and `duration` at least 1 ms");
        }
        Request change = max == null ? Request.cmd(Command.HDEL).arg(keys.meta()).arg("limiterMax").arg("limiterDuration")
                : Request.cmd(Command.HSET).arg(keys.meta()).arg("limiterMax").arg(max)
                        .arg("limiterDuration").arg(duration.toMillis());
        return redis.send(change).chain(this::wakeWorkers);
    }

    /**
     * Counts the jobs in each state. While the queue is paused, ready jobs count as {@code paused}
     * (BullMQ's convention). {@code failed} includes aborted jobs (they share the failed set).
     *
     * @return the count of every state except {@code aborted}
     */
    public Uni<Map<JobState, Long>> getJobCounts() {
        return listing.counts();
    }

    /**
     * Counts one tenant's jobs: those ready to run (waiting and prioritized, paused ones included) and those running.
     * Reads the queue's running jobs one by one: O(running jobs), for the operator's views.
     *
     * @param tenant a tenant id ({@link TenantIds})
     * @return {@code {ready, running}}; fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis
     *         is unreachable
     */
    public Uni<TenantJobs> getTenantJobs(String tenant) {
        return listing.tenantJobs(tenant);
    }

    /**
     * One tenant's jobs in a queue.
     *
     * @param ready its jobs ready to run: waiting, prioritized, or held by a paused queue
     * @param running its jobs running
     */
    public record TenantJobs(long ready, long running) {
    }

    /**
     * Lists jobs of one state, a page at a time: waiting jobs in the order they will run, delayed jobs by
     * due time, prioritized jobs by priority, completed and failed jobs newest first.
     *
     * @param state {@code waiting} (or {@code paused}), {@code prioritized}, {@code delayed}, {@code waiting-children},
     *        {@code active},
     *        {@code completed} or {@code failed}
     * @param start index of the first job, from 0
     * @param count most jobs to return, 1 to 1,000
     * @return the jobs (a job removed meanwhile is skipped)
     * @throws IllegalArgumentException for {@code aborted}, a negative start or a count outside 1..1,000
     */
    public Uni<List<Job>> getJobs(JobState state, int start, int count) {
        return listing.jobs(state, start, count);
    }

    /**
     * Follows the queue's event stream ({@code waiting}, {@code delayed}, {@code active}, {@code progress},
     * {@code completed}, {@code failed}, {@code aborted}, {@code stalled}, {@code removed}, {@code paused},
     * {@code resumed}, {@code cleaned}, {@code drained}) on a connection of its own, which cancelling the
     * {@code Multi} closes.
     *
     * @param afterId emit events after this stream entry id; {@code "$"} for events from now on,
     *        {@code "0"} for the whole (bounded) stream
     * @return the events, in order, until cancelled
     */
    public Multi<QueueEvent> events(String afterId) {
        return QueueEvents.follow(redis, keys, afterId);
    }

    private Uni<Boolean> setPaused(boolean paused) {
        return scripts.run(new SetPausedArgs(keys, paused, maxQueueEvents)).map(reply -> reply.toInteger() == 1);
    }

    /**
     * Sets the "jobs ready" marker, so that workers blocked on it look at the queue again (after a limit
     * was lifted or raised); a worker that finds nothing to do goes back to waiting.
     */
    private Uni<Void> wakeWorkers() {
        return redis.send(Request.cmd(Command.ZADD).arg(keys.marker()).arg(0).arg("0")).replaceWithVoid();
    }

}
