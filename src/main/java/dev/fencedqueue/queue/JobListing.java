package dev.fencedqueue.queue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/** Reads one queue's jobs for {@link JobQueue}: a job, the counts by state, a page of one state's jobs. */
final class JobListing {

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final JobArchive archive;
    private final Supplier<Uni<Boolean>> paused;

    /**
     * @param keys the queue's key layout
     * @param scripts the script registry
     * @param redis the shared connection
     * @param archive where finished jobs are read once Redis no longer keeps them
     * @param paused reads whether the queue is paused (its ready jobs then count as {@code paused})
     */
    JobListing(QueueKeys keys, LuaScripts scripts, SharedConnection redis, JobArchive archive,
            Supplier<Uni<Boolean>> paused) {
        this.keys = keys;
        this.scripts = scripts;
        this.redis = redis;
        this.archive = archive;
        this.paused = paused;
    }

    /** See {@link JobQueue#getJob(String)}. */
    Uni<Job> job(String jobId) {
        if (!QueueKeys.isJobId(jobId)) {
            return Uni.createFrom().nullItem();
        }
        return redis.send(Request.cmd(Command.HGETALL).arg(keys.job(jobId))).chain(reply -> {
            Map<String, String> fields = Replies.toStringMap(reply);
            if (!fields.isEmpty()) {
                return Uni.createFrom().item(Job.fromHash(keys.queue(), jobId, fields));
            }
            // Not (or no longer) in Redis: a finished job may have moved to the archive.
            return archive.find(keys.queue(), jobId).map(archived -> archived.map(ArchivedJob::job).orElse(null));
        });
    }

    /** See {@link JobQueue#getJobCounts()}. */
    Uni<Map<JobState, Long>> counts() {
        return Uni.combine().all().unis(readyJobs("count", 0, 0), count(Command.ZCARD, keys.delayed()),
                count(Command.LLEN, keys.active()), count(Command.ZCARD, keys.completed()),
                count(Command.ZCARD, keys.failed()), paused.get(), count(Command.ZCARD, keys.waitingChildren()))
                .with(results -> {
                    Response ready = (Response) results.get(0);
                    long waiting = ready.get(0).toLong();
                    boolean isPaused = (Boolean) results.get(5);
                    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
                    counts.put(JobState.WAITING, isPaused ? 0L : waiting);
                    counts.put(JobState.PAUSED, isPaused ? waiting : 0L);
                    counts.put(JobState.PRIORITIZED, ready.get(1).toLong());
                    counts.put(JobState.DELAYED, (Long) results.get(1));
                    counts.put(JobState.ACTIVE, (Long) results.get(2));
                    counts.put(JobState.COMPLETED, (Long) results.get(3));
                    counts.put(JobState.FAILED, (Long) results.get(4));
                    counts.put(JobState.WAITING_CHILDREN, (Long) results.get(6));
                    return counts;
                });
    }

    /** See {@link JobQueue#getTenantJobs(String)}. */
    Uni<JobQueue.TenantJobs> tenantJobs(String tenant) {
        return scripts.run(new ReadyJobsArgs(keys, "tenant", 0, 0, tenant))
                .map(reply -> new JobQueue.TenantJobs(reply.get(0).toLong(), reply.get(1).toLong()));
    }

    /** See {@link JobQueue#getJobs(JobState, int, int)}. */
    Uni<List<Job>> jobs(JobState state, int start, int count) {
        if (start < 0 || count < 1 || count > 1000) {
            throw new IllegalArgumentException("`start` must not be negative and `count` must be 1 to 1000");
        }
        int stop = start + count - 1;
        Uni<Response> ids = switch (state) {
            // Every tenant's: the queue's own ('default') first, oldest first.
            case WAITING, PAUSED -> readyJobs("waiting", start, stop);
            case PRIORITIZED -> readyJobs("prioritized", start, stop);
            case ACTIVE -> send(Request.cmd(Command.LRANGE).arg(keys.active()).arg(start).arg(stop));
            case DELAYED -> send(Request.cmd(Command.ZRANGE).arg(keys.delayed()).arg(start).arg(stop));
            case WAITING_CHILDREN -> send(Request.cmd(Command.ZRANGE).arg(keys.waitingChildren()).arg(start).arg(stop));
            case COMPLETED -> send(Request.cmd(Command.ZRANGE).arg(keys.completed()).arg(start).arg(stop).arg("REV"));
            case FAILED -> send(Request.cmd(Command.ZRANGE).arg(keys.failed()).arg(start).arg(stop).arg("REV"));
            case ABORTED -> throw new IllegalArgumentException("aborted jobs are listed with the failed ones");
        };
        return ids.chain(reply -> {
            List<String> jobIds = Replies.elements(reply).stream().map(Response::toString).toList();
            if (jobIds.isEmpty()) {
                return Uni.createFrom().item(List.<Job>of());
            }
            return Uni.join().all(jobIds.stream().map(this::job).toList()).andFailFast()
                    .map(jobs -> jobs.stream().filter(Objects::nonNull).toList());
        });
    }

    /** Runs {@code readyJobs.lua}: the ready jobs of every tenant. */
    private Uni<Response> readyJobs(String mode, int start, int stop) {
        return scripts.run(new ReadyJobsArgs(keys, mode, start, stop, ""));
    }

    private Uni<Response> send(Request request) {
        return redis.send(request);
    }

    private Uni<Long> count(Command command, String key) {
        return redis.send(Request.cmd(command).arg(key)).map(Response::toLong);
    }
}
