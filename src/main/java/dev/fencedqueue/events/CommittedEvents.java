package dev.fencedqueue.events;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;

/**
 * Reads what a new run of a job may continue: the job's valid history ({@link ValidHistory}) up to the run's resume
 * point. Every event up to the resume point passed the fence of its own run, so this is one consistent prefix of the
 * job's output. Thread-safe.
 */
public final class CommittedEvents {

    private final QueueKeys keys;
    private final ObjectMapper json;
    private final JobEventStore store;

    /**
     * @param keys the queue the jobs belong to, must not be {@code null}
     * @param redis the shared connection, must not be {@code null}
     * @param archive where a finished job's events are read once Redis no longer keeps them, must not be {@code null}
     *        ({@link JobArchive#NONE} for nowhere)
     * @param json Jackson, must not be {@code null}
     */
    public CommittedEvents(QueueKeys keys, SharedConnection redis, JobArchive archive, ObjectMapper json) {
        this.keys = keys;
        this.json = json;
        this.store = new JobEventStore(redis, archive, json);
    }

    /**
     * @param jobId the job, must not be {@code null}
     * @param resumePoint the run's resume point (a stream entry id), or {@code null} when it has none
     * @return the events a reader keeps up to the resume point, in stream order; empty when {@code resumePoint} is
     *         {@code null}; fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis cannot be
     *         reached
     */
    public Uni<List<JobEvent>> upTo(String jobId, String resumePoint) {
        if (resumePoint == null) {
            return Uni.createFrom().item(List.of());
        }
        return store.readUntil(keys, jobId, resumePoint).map(events -> ValidHistory.of(events, json));
    }
}
