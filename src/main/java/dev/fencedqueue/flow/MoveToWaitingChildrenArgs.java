package dev.fencedqueue.flow;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code moveToWaitingChildren-9.lua}: parks a running parent until its children ended, fenced. ARGV in
 * order: the job id, the run's lock token, its fencing token and the queue event stream's maximum length (entries).
 *
 * @param queue the job's queue
 * @param jobId the job
 * @param lockToken the run's lock token
 * @param fencingToken the run's fencing token
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record MoveToWaitingChildrenArgs(QueueKeys queue, String jobId, String lockToken, long fencingToken,
        int maxQueueEvents) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.MOVE_TO_WAITING_CHILDREN;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.active(), queue.job(jobId), queue.dependencies(jobId), queue.waitingChildren(),
                queue.events(), queue.marker(), queue.meta(), queue.waitList(), queue.prioritized());
    }

    @Override
    public List<String> args() {
        return List.of(jobId, lockToken, Long.toString(fencingToken), Integer.toString(maxQueueEvents));
    }
}
