package dev.fencedqueue.api.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.api.JobStatusView;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reads the pages of {@code GET /admin/queues/{queue}/jobs}. Finished jobs ({@code completed}; {@code failed} with the
 * aborted ones) are in two places: Redis holds those that ended within {@code fq.archive.grace}, the archive the older
 * ones. A page of them reads Redis's first, newest first, then goes on into the archive's; its total counts both.
 */
@ApplicationScoped
public class JobPages {

    private final SharedConnection redis;
    private final JobArchive archive;
    private final ObjectMapper json;

    public JobPages(SharedConnection redis, JobArchive archive, ObjectMapper json) {
        this.redis = redis;
        this.archive = archive;
        this.json = json;
    }

    /**
     * @param queue the queue, must not be {@code null}
     * @param state the state listed; {@code aborted} is not one ({@link JobQueue#getJobs})
     * @param start index of the first job, from 0
     * @param count most jobs, 1 to 1,000
     * @return the page; fails with {@code DatabaseUnavailableException} (503) when it needs the archive (a finished
     *         state while the archive is on) and PostgreSQL cannot be read
     */
    public Uni<JobPage> page(JobQueue queue, JobState state, int start, int count) {
        if ((state == JobState.COMPLETED || state == JobState.FAILED) && archive.isActive()) {
            return finished(queue, state, start, count);
        }
        return Uni.combine().all().unis(queue.getJobCounts(), queue.getJobs(state, start, count)).asTuple()
                .map(both -> new JobPage(queue.name(), state.value(), start, count, total(both.getItem1(), state), null,
                        listed(both.getItem2(), false)));
    }

    /**
     * A page of finished jobs across Redis and the archive. Redis's finished set is read first (its size, and the
     * finish time of its oldest job); the archive then lists only jobs that finished before that one, so that a job
     * being moved (in the archive already, not yet dropped from Redis) is listed once.
     */
    private Uni<JobPage> finished(JobQueue queue, JobState state, int start, int count) {
        String set = state == JobState.COMPLETED ? queue.keys().completed() : queue.keys().failed();
        Uni<Response> size = redis.send(Request.cmd(Command.ZCARD).arg(set));
        Uni<Response> oldest = redis.send(Request.cmd(Command.ZRANGE).arg(set).arg(0).arg(0).arg("WITHSCORES"));
        return Uni.combine().all().unis(size, oldest, archive.countFinished(queue.name(), state)).asTuple()
                .chain(all -> {
                    long inRedis = all.getItem1().toLong();
                    long finishedBefore = oldestFinish(all.getItem2());
                    long archived = all.getItem3();
                    int fromRedis = (int) Math.max(0, Math.min(count, inRedis - start));
                    int fromArchive = count - fromRedis;
                    Uni<List<Job>> recent = fromRedis == 0 ? Uni.createFrom().item(List.of())
                            : queue.getJobs(state, start, fromRedis);
                    Uni<List<Job>> older = fromArchive == 0 ? Uni.createFrom().item(List.of())
                            : archive.finished(queue.name(), state, finishedBefore,
                                    (int) Math.min(Integer.MAX_VALUE, Math.max(0, start - inRedis)), fromArchive);
                    return Uni.combine().all().unis(recent, older).asTuple().map(both -> {
                        List<ListedJob> jobs = new ArrayList<>(listed(both.getItem1(), false));
                        jobs.addAll(listed(both.getItem2(), true));
                        return new JobPage(queue.name(), state.value(), start, count, inRedis + archived, archived, jobs);
                    });
                });
    }

    /** @return the score (finish time, ms) of a {@code ZRANGE ... WITHSCORES} reply's first member, or no bound */
    private static long oldestFinish(Response reply) {
        List<Response> members = Replies.elements(reply);
        return members.isEmpty() ? Long.MAX_VALUE : (long) Double.parseDouble(members.get(0).get(1).toString());
    }

    private List<ListedJob> listed(List<Job> jobs, boolean archived) {
        return jobs.stream().map(job -> new ListedJob(JobStatusView.of(job, json), archived)).toList();
    }

    private static long total(Map<JobState, Long> counts, JobState state) {
        if (state == JobState.WAITING || state == JobState.PAUSED) {
            return counts.get(JobState.WAITING) + counts.get(JobState.PAUSED);
        }
        return counts.getOrDefault(state, 0L);
    }
}
