package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code drainQueue-5.lua}: removes one batch of a queue's ready (and delayed) jobs. ARGV in order: the
 * queue's key prefix, '1' or '0' for whether delayed jobs go too, the most jobs to remove and the queue event stream's
 * maximum length (entries).
 *
 * @param ctx the queue
 * @param delayed whether delayed jobs are removed too
 * @param batch the most jobs to remove in this call
 */
record DrainQueueArgs(QueueContext ctx, boolean delayed, int batch) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.DRAIN_QUEUE;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.waitList(), keys.prioritized(), keys.delayed(), keys.marker(), keys.events());
    }

    @Override
    public List<String> args() {
        return List.of(ctx.keys().prefix(), delayed ? "1" : "0", Integer.toString(batch), ctx.queueEventsArg());
    }
}
