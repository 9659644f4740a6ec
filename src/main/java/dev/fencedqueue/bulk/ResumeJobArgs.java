package dev.fencedqueue.bulk;

import java.util.List;

import dev.fencedqueue.queue.QueueContext;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code resumeJob-8.lua}: moves an aborted chunked job back to the queue, its abort flag cleared. ARGV in
 * order: the job id and the queue event stream's maximum length (entries).
 *
 * @param ctx the job's queue
 * @param jobId the job
 */
record ResumeJobArgs(QueueContext ctx, String jobId) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.RESUME_JOB;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.failed(), keys.waitList(), keys.prioritized(), keys.marker(), keys.meta(), keys.job(jobId),
                keys.events(), keys.abortFlag(jobId));
    }

    @Override
    public List<String> args() {
        return List.of(jobId, ctx.queueEventsArg());
    }
}
