package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Replies;
import io.smallrye.mutiny.Uni;

/**
 * Operator actions on one queue: remove a job, retry a failed job, clean old jobs of a state, drain the
 * jobs waiting to run, obliterate a paused queue. Each is a Lua script; the bulk ones work in bounded
 * batches so that Redis is never blocked for long.
 */
public class QueueMaintenance {

    private static final int BATCH = 1000;

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final int maxQueueEvents;

    /**
     * @param keys the queue's key layout
     * @param scripts the script registry
     * @param maxQueueEvents maximum length of the queue event stream, entries
     */
    QueueMaintenance(QueueKeys keys, LuaScripts scripts, int maxQueueEvents) {
        this.keys = keys;
        this.scripts = scripts;
        this.maxQueueEvents = maxQueueEvents;
    }

    /**
     * Removes a job that is not running, with all its keys (its event stream included).
     *
     * @param jobId the job id
     * @return the state the job was in; fails with {@link JobNotFoundException} when there is no such job
     *         and with {@link JobStateConflictException} when it is running (abort it first)
     */
    public Uni<JobState> remove(String jobId) {
        if (!QueueKeys.isJobId(jobId)) {
            return Uni.createFrom().failure(new JobNotFoundException(keys.queue(), jobId));
        }
        return scripts.run(new RemoveJobArgs(keys, jobId, maxQueueEvents))
                .map(reply -> ScriptErrors.stateOrThrow(LuaScript.REMOVE_JOB, keys.queue(), jobId, reply));
    }

    /**
     * Retries a failed job: it goes back to the wait list with a fresh count of attempts; its next run is
     * a new epoch. Aborted jobs are never retried.
     *
     * @param jobId the job id
     * @return completes when retried; fails with {@link JobNotFoundException} when there is no such job
     *         and with {@link JobStateConflictException} when it has not failed
     */
    public Uni<Void> retry(String jobId) {
        if (!QueueKeys.isJobId(jobId)) {
            return Uni.createFrom().failure(new JobNotFoundException(keys.queue(), jobId));
        }
        return scripts.run(new RetryJobArgs(keys, jobId, maxQueueEvents))
                .map(reply -> ScriptErrors.stateOrThrow(LuaScript.RETRY_JOB, keys.queue(), jobId, reply)).replaceWithVoid();
    }

    /**
     * Removes jobs of one state older than a grace period (finished that long ago for completed and failed
     * jobs, added that long ago for the others), with all their keys.
     *
     * @param state {@code completed}, {@code failed} (aborted jobs included), {@code waiting},
     *        {@code delayed} or {@code prioritized}
     * @param grace the age below which jobs are kept, not negative
     * @param limit the most jobs to remove, at least 1
     * @return the ids of the removed jobs
     * @throws IllegalArgumentException for another state, a negative grace or a limit below 1
     */
    public Uni<List<String>> clean(JobState state, Duration grace, int limit) {
        String key = switch (state) {
            case COMPLETED -> keys.completed();
            case FAILED -> keys.failed();
            case WAITING -> keys.waitList();
            case DELAYED -> keys.delayed();
            case PRIORITIZED -> keys.prioritized();
            default -> throw new IllegalArgumentException("`state` must be completed, failed, waiting, delayed or prioritized");
        };
        if (grace == null || grace.isNegative() || limit < 1) {
            throw new IllegalArgumentException("`grace` must not be negative and `limit` must be at least 1");
        }
        return cleanFrom(key, state, grace, limit, new ArrayList<>());
    }

    /**
     * Drains the queue: removes every job waiting to run (wait list and prioritized set, and delayed jobs
     * when asked), with all their keys. Running jobs go on.
     *
     * @param delayed whether to remove delayed jobs too
     * @return how many jobs were removed
     */
    public Uni<Long> drain(boolean delayed) {
        return drainFrom(delayed, 0L);
    }

    /**
     * Deletes a paused queue and everything in it: jobs, their event streams, counters, idempotency and
     * deduplication keys, the queue's event stream.
     *
     * @param force also when jobs are running (their workers' later writes are then rejected)
     * @return how many keys were deleted; fails with {@link JobStateConflictException} when the queue is not
     *         paused, or has running jobs and {@code force} is {@code false}
     */
    public Uni<Long> obliterate(boolean force) {
        return obliterateFrom(force, 0L);
    }

    private Uni<List<String>> cleanFrom(String key, JobState state, Duration grace, int limit, List<String> removed) {
        int batch = Math.min(BATCH, limit - removed.size());
        return scripts.run(new CleanJobsArgs(keys, key, state, grace, batch, maxQueueEvents))
                .chain(reply -> {
                    Replies.elements(reply).forEach(id -> removed.add(id.toString()));
                    boolean more = reply.size() == batch && removed.size() < limit;
                    return more ? cleanFrom(key, state, grace, limit, removed) : Uni.createFrom().item(removed);
                });
    }

    private Uni<Long> drainFrom(boolean delayed, long removed) {
        return scripts.run(new DrainQueueArgs(keys, delayed, BATCH, maxQueueEvents))
                .chain(reply -> reply.toLong() == 0 ? Uni.createFrom().item(removed)
                        : drainFrom(delayed, removed + reply.toLong()));
    }

    private Uni<Long> obliterateFrom(boolean force, long deleted) {
        return scripts.run(new ObliterateQueueArgs(keys, force, BATCH))
                .chain(reply -> {
                    long count = reply.get(0).toLong();
                    if (count < 0) {
                        return Uni.createFrom().failure(ScriptErrors.toException(LuaScript.OBLITERATE_QUEUE,
                                keys.queue(), "", count, -1));
                    }
                    return reply.get(1).toInteger() == 1 ? Uni.createFrom().item(deleted + count)
                            : obliterateFrom(force, deleted + count);
                });
    }
}
