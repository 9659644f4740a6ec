package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code retryJob-7.lua}: moves a failed job back to the wait list with a fresh count of attempts. ARGV in
 * order: the job id and the queue event stream's maximum length (entries).
 *
 * @param ctx the queue
 * @param jobId the job
 */
record RetryJobArgs(QueueContext ctx, String jobId) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.RETRY_JOB;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.failed(), keys.waitList(), keys.prioritized(), keys.marker(), keys.meta(), keys.job(jobId),
                keys.events());
    }

    @Override
    public List<String> args() {
        return List.of(jobId, ctx.queueEventsArg());
    }
}
