package dev.fencedqueue.worker;

import java.util.List;

import dev.fencedqueue.queue.QueueContext;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code moveToActive-7.lua}: activates up to {@code next.count()} ready jobs for a worker. ARGV in order:
 * the queue's key prefix, the most jobs to activate, their lock token prefix, the lock duration (ms), the worker id,
 * and the job and queue event streams' maximum lengths (entries).
 *
 * @param ctx the queue
 * @param next the jobs to activate: how many (the worker's free slots), for which worker, under which lock
 */
record MoveToActiveArgs(QueueContext ctx, NextJobs next) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.MOVE_TO_ACTIVE;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.waitList(), keys.active(), keys.prioritized(), keys.delayed(), keys.marker(), keys.meta(),
                keys.events());
    }

    @Override
    public List<String> args() {
        return List.of(ctx.keys().prefix(), Integer.toString(next.count()), next.lockPrefix(), next.lockDurationArg(),
                next.workerId(), ctx.streamLengthArg(), ctx.queueEventsArg());
    }
}
