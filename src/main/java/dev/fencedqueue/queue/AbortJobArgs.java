package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code abortJob-10.lua}: aborts a job in any state but ended. ARGV in order: the job id, the reason, the
 * job event stream's maximum length (entries), the revoked channel, the queue's key prefix and the queue event
 * stream's maximum length (entries).
 *
 * @param queue the queue's key layout
 * @param jobId the job
 * @param reason why, shown to readers (text)
 * @param maxStreamLength the job event stream's maximum length, entries
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record AbortJobArgs(QueueKeys queue, String jobId, String reason, int maxStreamLength, int maxQueueEvents)
        implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.ABORT_JOB;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.waitList(), queue.active(), queue.delayed(), queue.prioritized(), queue.failed(),
                queue.job(jobId), queue.events(jobId), queue.events(), queue.marker(), queue.meta());
    }

    @Override
    public List<String> args() {
        return List.of(jobId, reason, Integer.toString(maxStreamLength), queue.revokedChannel(), queue.prefix(),
                Integer.toString(maxQueueEvents));
    }
}
