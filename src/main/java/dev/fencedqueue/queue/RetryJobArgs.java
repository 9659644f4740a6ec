package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code retryJob-7.lua}: moves a failed job back to the wait list with a fresh count of attempts. ARGV in
 * order: the job id and the queue event stream's maximum length (entries).
 *
 * @param queue the queue's key layout
 * @param jobId the job
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record RetryJobArgs(QueueKeys queue, String jobId, int maxQueueEvents) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.RETRY_JOB;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.failed(), queue.waitList(), queue.prioritized(), queue.marker(), queue.meta(),
                queue.job(jobId), queue.events());
    }

    @Override
    public List<String> args() {
        return List.of(jobId, Integer.toString(maxQueueEvents));
    }
}
