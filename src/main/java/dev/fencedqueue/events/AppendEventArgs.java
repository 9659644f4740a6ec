package dev.fencedqueue.events;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code appendEvent-3.lua}: the fenced append of one event (and a checkpoint) to a job's event stream.
 * ARGV in order: the writer's fencing token, the event's type, its stored data, the job event stream's maximum
 * length (entries), '1' or '0' for whether it records a progress, that progress (JSON), the job id, the queue event
 * stream's maximum length (entries), the writer's lock token, the checkpoint (JSON, '' for none) and the entry's text.
 *
 * @param queue the job's queue
 * @param jobId the job
 * @param fencingToken the writer's fencing token (its epoch)
 * @param lockToken the writer's lock token (its attempt)
 * @param entry the event in its stored form; an empty type writes only the checkpoint
 * @param progress the job's last progress to record (JSON text, also a {@code progress} queue event), or
 *        {@code null} for none
 * @param checkpoint the checkpoint to record with the event (JSON text), or {@code null} for none
 * @param maxStreamLength the job event stream's maximum length, entries
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record AppendEventArgs(QueueKeys queue, String jobId, long fencingToken, String lockToken, StoredEvent.Entry entry,
        String progress, String checkpoint, int maxStreamLength, int maxQueueEvents) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.APPEND_EVENT;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.job(jobId), queue.events(jobId), queue.events());
    }

    @Override
    public List<String> args() {
        return List.of(Long.toString(fencingToken), entry.type(), entry.data(), Integer.toString(maxStreamLength),
                progress == null ? "0" : "1", progress == null ? "" : progress, jobId, Integer.toString(maxQueueEvents),
                lockToken, checkpoint == null ? "" : checkpoint, entry.text());
    }
}
