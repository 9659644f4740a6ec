package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code removeJob-9.lua}: removes a job that is not running, with all its keys. ARGV in order: the queue's
 * key prefix, the job id and the queue event stream's maximum length (entries).
 *
 * @param ctx the queue
 * @param jobId the job
 */
record RemoveJobArgs(QueueContext ctx, String jobId) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.REMOVE_JOB;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.job(jobId), keys.waitList(), keys.active(), keys.delayed(), keys.prioritized(),
                keys.completed(), keys.failed(), keys.stalled(), keys.events());
    }

    @Override
    public List<String> args() {
        return List.of(ctx.keys().prefix(), jobId, ctx.queueEventsArg());
    }
}
