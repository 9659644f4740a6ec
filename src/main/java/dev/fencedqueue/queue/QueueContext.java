package dev.fencedqueue.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.tracing.JobTracing;

/**
 * What every view of one queue shares: its keys, the scripts, the shared connection, Jackson, and the
 * stream bounds. Only package {@code worker} still takes it (see {@link QueueContexts}).
 *
 * @param keys the queue's key layout
 * @param scripts the script registry
 * @param redis the shared connection
 * @param json Jackson
 * @param maxStreamLength maximum length of a job event stream, entries
 * @param maxQueueEvents maximum length of the queue event stream, entries
 * @param tracing the spans of jobs
 * @param archive where finished jobs go once Redis no longer keeps them ({@link JobArchive#NONE} when nowhere)
 */
public record QueueContext(QueueKeys keys, LuaScripts scripts, SharedConnection redis, ObjectMapper json,
        int maxStreamLength, int maxQueueEvents, JobTracing tracing, JobArchive archive) {

    /** @return {@link #maxStreamLength()} as a script argument */
    public String streamLengthArg() {
        return Integer.toString(maxStreamLength);
    }

    /** @return {@link #maxQueueEvents()} as a script argument */
    public String queueEventsArg() {
        return Integer.toString(maxQueueEvents);
    }
}
