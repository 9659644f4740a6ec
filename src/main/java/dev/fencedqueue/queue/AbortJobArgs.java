package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code abortJob-10.lua}: aborts a job in any state but ended. ARGV in order: the job id, the reason, the
 * job event stream's maximum length (entries), the revoked channel, the queue's key prefix and the queue event
 * stream's maximum length (entries).
 *
 * @param ctx the queue
 * @param jobId the job
 * @param reason why, shown to readers (text)
 */
record AbortJobArgs(QueueContext ctx, String jobId, String reason) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.ABORT_JOB;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.waitList(), keys.active(), keys.delayed(), keys.prioritized(), keys.failed(),
                keys.job(jobId), keys.events(jobId), keys.events(), keys.marker(), keys.meta());
    }

    @Override
    public List<String> args() {
        QueueKeys keys = ctx.keys();
        return List.of(jobId, reason, ctx.streamLengthArg(), keys.revokedChannel(), keys.prefix(),
                ctx.queueEventsArg());
    }
}
