package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code removeJob-9.lua}: removes a job that is not running, with all its keys. ARGV in order: the queue's
 * key prefix, the job id and the queue event stream's maximum length (entries).
 *
 * @param queue the queue's key layout
 * @param jobId the job
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record RemoveJobArgs(QueueKeys queue, String jobId, int maxQueueEvents) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.REMOVE_JOB;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.job(jobId), queue.waitList(), queue.active(), queue.delayed(), queue.prioritized(),
                queue.completed(), queue.failed(), queue.stalled(), queue.events());
    }

    @Override
    public List<String> args() {
        return List.of(queue.prefix(), jobId, Integer.toString(maxQueueEvents));
    }
}
