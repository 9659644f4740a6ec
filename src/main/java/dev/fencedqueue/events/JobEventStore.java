package dev.fencedqueue.events;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.ArchivedJob;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reads job event streams ({@code XRANGE}), back from their stored form ({@link StoredEvent}, {@link EntryReader}).
 * A job Redis no longer has (its hash is gone) is read from the archive ({@link JobArchive}) instead, with the same
 * ids and the same data: a reader that read part of a stream from Redis before the job moved goes on after its last
 * id in the archive, with no gap and no repeat (the archiver removes a job from Redis only once the archive holds it).
 * Writes go through the fenced Lua scripts, never through here.
 */
@ApplicationScoped
public class JobEventStore {

    /** Entries read per {@code XRANGE} page. */
    static final int PAGE = 1000;

    private final SharedConnection redis;
    private final JobArchive archive;
    private final ObjectMapper json;

    /**
     * @param redis where the streams are, must not be {@code null}
     * @param archive where the streams of archived jobs are, must not be {@code null}
     * @param json the application's object mapper, which reads the events' data, must not be {@code null}
     */
    public JobEventStore(SharedConnection redis, JobArchive archive, ObjectMapper json) {
        this.redis = redis;
        this.archive = archive;
        this.json = json;
    }

    /**
     * Reads one page of a job's events.
     *
     * @param keys the queue's key layout
     * @param jobId the job id
     * @param afterId read entries strictly after this entry id; {@code null} reads from the start
     * @param count the most entries to read
     * @return the events in stream order; empty when there are none (or no stream)
     */
    public Uni<List<JobEvent>> read(QueueKeys keys, String jobId, String afterId, int count) {
        return read(keys, jobId, afterId, "+", count);
    }

    private Uni<List<JobEvent>> read(QueueKeys keys, String jobId, String afterId, String untilId, int count) {
        Request request = Request.cmd(Command.XRANGE).arg(keys.events(jobId)).arg(afterId == null ? "-" : "(" + afterId)
                .arg(untilId).arg("COUNT").arg(count);
        return redis.send(request).chain(reply -> {
            List<Response> entries = Replies.elements(reply);
            if (!entries.isEmpty()) {
                return EntryReader.events(redis, keys, jobId, entries, new HashMap<>(), json);
            }
            return archived(keys, jobId).map(job -> job.map(archived -> EntryReader.archived(archived,
                    slice(archived, afterId, untilId, count), json)).orElse(List.of()));
        });
    }

    /**
     * Reads all of a job's events (its history), page by page.
     *
     * @param keys the queue's key layout
     * @param jobId the job id
     * @param afterId read entries strictly after this id; {@code null} reads from the start
     * @return the events in stream order
     */
    public Uni<List<JobEvent>> readAll(QueueKeys keys, String jobId, String afterId) {
        return readFrom(keys, jobId, afterId, "+", new ArrayList<>());
    }

    /**
     * Reads a job's events up to an entry, page by page.
     *
     * @param keys the queue's key layout
     * @param jobId the job id
     * @param untilId the last entry id to read (inclusive), must not be {@code null}
     * @return the events from the stream's start up to {@code untilId}, in stream order
     */
    public Uni<List<JobEvent>> readUntil(QueueKeys keys, String jobId, String untilId) {
        return readFrom(keys, jobId, null, untilId, new ArrayList<>());
    }

    private Uni<List<JobEvent>> readFrom(QueueKeys keys, String jobId, String afterId, String untilId,
            List<JobEvent> into) {
        return read(keys, jobId, afterId, untilId, PAGE).chain(page -> {
            into.addAll(page);
            if (page.size() < PAGE) {
                return Uni.createFrom().item(into);
            }
            return readFrom(keys, jobId, page.get(page.size() - 1).id(), untilId, into);
        });
    }

    /**
     * Reads one entry.
     *
     * @param keys the queue's key layout
     * @param jobId the job id
     * @param id a valid entry id
     * @return the event, or {@code null} when the stream has no such entry (never written, or trimmed)
     */
    public Uni<JobEvent> entry(QueueKeys keys, String jobId, String id) {
        Request request = Request.cmd(Command.XRANGE).arg(keys.events(jobId)).arg(id).arg(id);
        return redis.send(request).chain(reply -> {
            List<Response> entries = Replies.elements(reply);
            if (!entries.isEmpty()) {
                return EntryReader.events(redis, keys, jobId, entries, new HashMap<>(), json)
                        .map(events -> events.get(0));
            }
            return archived(keys, jobId).map(job -> job.flatMap(archived -> archived.events().stream()
                    .filter(entry -> entry.id().equals(id)).findFirst()
                    .map(entry -> EntryReader.archived(archived, List.of(entry), json).get(0))).orElse(null));
        });
    }

    /**
     * Reads the epoch of an entry: for a reader that resumes after it, whether its first event is of a newer epoch.
     *
     * @param keys the queue's key layout
     * @param jobId the job id
     * @param id a valid entry id, or {@code null}
     * @return the entry's fencing token; -1 when {@code id} is {@code null} or the stream has no such entry (never
     *         written, or trimmed)
     */
    public Uni<Long> epochOf(QueueKeys keys, String jobId, String id) {
        if (id == null) {
            return Uni.createFrom().item(-1L);
        }
        return entry(keys, jobId, id).map(entry -> entry == null ? -1L : entry.fencingToken());
    }

    /**
     * @param keys the queue's key layout
     * @param jobId the job id
     * @return the id of the stream's last entry, or {@code 0-0} when the stream is empty or absent
     */
    public Uni<String> lastId(QueueKeys keys, String jobId) {
        Request request = Request.cmd(Command.XREVRANGE).arg(keys.events(jobId)).arg("+").arg("-").arg("COUNT").arg(1);
        return redis.send(request).chain(reply -> {
            List<Response> entries = Replies.elements(reply);
            if (!entries.isEmpty()) {
                return Uni.createFrom().item(entries.get(0).get(0).toString());
            }
            return archived(keys, jobId).map(job -> job.filter(archived -> !archived.events().isEmpty())
                    .map(archived -> archived.events().get(archived.events().size() - 1).id()).orElse(StreamIds.START));
        });
    }

    /**
     * @return the job from the archive when Redis no longer has it (its hash is gone), else empty: a job still in
     *         Redis is read from Redis only, even when its stream is empty
     */
    private Uni<Optional<ArchivedJob>> archived(QueueKeys keys, String jobId) {
        if (!archive.isActive()) {
            return Uni.createFrom().item(Optional.empty());
        }
        return redis.send(Request.cmd(Command.EXISTS).arg(keys.job(jobId))).chain(exists -> exists.toLong() > 0
                ? Uni.createFrom().item(Optional.<ArchivedJob>empty()) : archive.find(keys.queue(), jobId));
    }

    /** @return the archived entries after {@code afterId} (all when {@code null}) up to {@code untilId} ({@code +}: all) */
    private static List<ArchivedJob.StreamEntry> slice(ArchivedJob job, String afterId, String untilId, int count) {
        return job.events().stream()
                .filter(entry -> afterId == null || StreamIds.compare(entry.id(), afterId) > 0)
                .filter(entry -> "+".equals(untilId) || StreamIds.compare(entry.id(), untilId) <= 0)
                .limit(count).toList();
    }
}
