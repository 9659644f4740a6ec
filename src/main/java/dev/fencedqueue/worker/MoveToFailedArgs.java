package dev.fencedqueue.worker;

import java.util.List;

import dev.fencedqueue.queue.QueueContext;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code moveToFailed-10.lua}: ends a failed attempt (retried after {@code retryDelay}, or failed for good)
 * and activates the worker's next jobs. ARGV in order: the queue's key prefix, the job id, its lock token, its fencing
 * token, the reason, the retry delay (ms; -1 fails for good), the job and queue event streams' maximum lengths
 * (entries), the worker id, the next jobs' count, their lock token prefix and the lock duration (ms).
 *
 * @param ctx the queue
 * @param job the attempt that failed
 * @param reason why it failed (text)
 * @param retryDelayMs how long until the next attempt, ms; -1 to fail the job for good
 * @param next the worker's next jobs to activate in the same call
 */
record MoveToFailedArgs(QueueContext ctx, ActiveJob job, String reason, long retryDelayMs, NextJobs next)
        implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.MOVE_TO_FAILED;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        String id = job.id();
        return List.of(keys.active(), keys.waitList(), keys.delayed(), keys.prioritized(), keys.failed(), keys.marker(),
                keys.meta(), keys.job(id), keys.events(id), keys.events());
    }

    @Override
    public List<String> args() {
        return List.of(ctx.keys().prefix(), job.id(), job.lockToken(), Long.toString(job.fencingToken()), reason,
                Long.toString(retryDelayMs), ctx.streamLengthArg(), ctx.queueEventsArg(), next.workerId(),
                Integer.toString(next.count()), next.lockPrefix(), next.lockDurationArg());
    }
}
