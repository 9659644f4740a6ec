package dev.fencedqueue.events;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.ScriptErrors;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import io.smallrye.mutiny.Uni;
import io.vertx.redis.client.ResponseType;

/**
 * The fenced append to a job's event stream ({@code appendEvent.lua}): an event is added only if the writer's
 * fencing token is the job's current one, its lock token is the attempt that holds the job, and the job is active,
 * all checked in the script that adds it (Kleppmann's fencing token, checked where the write lands). Thread-safe;
 * it holds no state beyond the queue it writes to.
 */
public final class FencedAppend {

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final ObjectMapper json;
    private final int maxStreamLength;
    private final int maxQueueEvents;

    /**
     * @param keys the queue the jobs belong to, must not be {@code null}
     * @param scripts the script registry, must not be {@code null}
     * @param json Jackson, which writes an event's data, must not be {@code null}
     * @param maxStreamLength maximum length of a job event stream, entries
     * @param maxQueueEvents maximum length of the queue event stream, entries
     */
    public FencedAppend(QueueKeys keys, LuaScripts scripts, ObjectMapper json, int maxStreamLength,
            int maxQueueEvents) {
        this.keys = keys;
        this.scripts = scripts;
        this.json = json;
        this.maxStreamLength = maxStreamLength;
        this.maxQueueEvents = maxQueueEvents;
    }

    /**
     * Appends one event in its stored form ({@link StoredEvent}); each subscription sends the script again.
     *
     * @param jobId the job, must not be {@code null}
     * @param fencingToken the writer's fencing token (its epoch)
     * @param lockToken the writer's lock token (its attempt), must not be {@code null}
     * @param workerId the writer's worker id, must not be {@code null}
     * @param type the event type, or {@code null} to write only a checkpoint
     * @param data the event's whole data (shaped by {@link JobEventData}), not modified; {@code null} only without an
     *        event
     * @param progress for a {@code progress} event, the job's last progress to record (JSON text, also sent as a
     *        {@code progress} queue event); {@code null} for other events
     * @param checkpoint a checkpoint to record with the event (JSON text, the job's {@code checkpoint} field, which
     *        the next run reads), or {@code null} for none; with {@code type} {@code null} the checkpoint alone is
     *        written
     * @return the stream entry id ({@code ""} when no event was written); fails with
     *         {@link dev.fencedqueue.queue.StaleFencingTokenException} (a newer epoch, or another attempt, owns the
     *         job), {@link dev.fencedqueue.queue.JobNotActiveException} or
     *         {@link dev.fencedqueue.queue.JobNotFoundException}, as {@link ScriptErrors} maps the script's codes, and
     *         with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis cannot be reached
     */
    public Uni<String> append(String jobId, long fencingToken, String lockToken, String workerId, String type,
            ObjectNode data, String progress, String checkpoint) {
        StoredEvent.Entry entry = type == null ? new StoredEvent.Entry("", "", "")
                : StoredEvent.of(type, fencingToken, workerId, data, json);
        return scripts.run(new AppendEventArgs(keys, jobId, fencingToken, lockToken, entry, progress, checkpoint,
                        maxStreamLength, maxQueueEvents))
                .map(reply -> {
                    if (reply.type() == ResponseType.NUMBER) {
                        throw ScriptErrors.toException(LuaScript.APPEND_EVENT, keys.queue(), jobId, reply.toLong(),
                                fencingToken);
                    }
                    return reply.toString();
                });
    }
}
