package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code drainQueue-5.lua}: removes one batch of a queue's ready (and delayed) jobs. ARGV in order: the
 * queue's key prefix, '1' or '0' for whether delayed jobs go too, the most jobs to remove and the queue event stream's
 * maximum length (entries).
 *
 * @param queue the queue's key layout
 * @param delayed whether delayed jobs are removed too
 * @param batch the most jobs to remove in this call
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record DrainQueueArgs(QueueKeys queue, boolean delayed, int batch, int maxQueueEvents) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.DRAIN_QUEUE;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.waitList(), queue.prioritized(), queue.delayed(), queue.marker(), queue.events());
    }

    @Override
    public List<String> args() {
        return List.of(queue.prefix(), delayed ? "1" : "0", Integer.toString(batch), Integer.toString(maxQueueEvents));
    }
}
