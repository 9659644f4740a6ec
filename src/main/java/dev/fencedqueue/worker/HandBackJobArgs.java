package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.queue.QueueContext;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code handBackJob-7.lua}: hands a job back to the front of its wait list without counting an attempt.
 * ARGV in order: the job id, its lock token, its fencing token, the queue event stream's maximum length (entries) and
 * how long the queue's dispatch is held (ms, 0 for not held).
 *
 * @param ctx the queue
 * @param job the attempt that hands its job back
 * @param hold how long the queue's dispatch is held, fleet-wide; zero (or negative) for not held
 */
record HandBackJobArgs(QueueContext ctx, ActiveJob job, Duration hold) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.HAND_BACK_JOB;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.active(), keys.waitList(), keys.prioritized(), keys.marker(), keys.meta(),
                keys.job(job.id()), keys.events());
    }

    @Override
    public List<String> args() {
        return List.of(job.id(), job.lockToken(), Long.toString(job.fencingToken()), ctx.queueEventsArg(),
                Long.toString(Math.max(0, hold.toMillis())));
    }
}
