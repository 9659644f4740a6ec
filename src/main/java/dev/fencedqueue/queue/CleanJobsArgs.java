package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code cleanJobs-2.lua}: removes one batch of the old jobs of a state. ARGV in order: the queue's key
 * prefix, the state, the grace (ms), the most jobs to remove and the queue event stream's maximum length (entries).
 *
 * @param queue the queue's key layout
 * @param key the structure of that state: the completed or failed set, the wait list, or the delayed or prioritized
 *        set
 * @param state the state: {@code completed}, {@code failed}, {@code waiting}, {@code delayed} or {@code prioritized}
 * @param grace only jobs that finished (or, in the other states, were added) at least this long ago are removed
 * @param batch the most jobs to remove in this call
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record CleanJobsArgs(QueueKeys queue, String key, JobState state, Duration grace, int batch, int maxQueueEvents)
        implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.CLEAN_JOBS;
    }

    @Override
    public List<String> keys() {
        return List.of(key, queue.events());
    }

    @Override
    public List<String> args() {
        return List.of(queue.prefix(), state.value(), Long.toString(grace.toMillis()), Integer.toString(batch),
                Integer.toString(maxQueueEvents));
    }
}
