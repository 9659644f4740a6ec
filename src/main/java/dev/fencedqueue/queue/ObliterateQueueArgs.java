package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code obliterateQueue-2.lua}: deletes one batch of a paused queue's keys. ARGV in order: the queue's key
 * prefix, '1' or '0' for whether it goes on with jobs running, and the most keys to delete.
 *
 * @param queue the queue's key layout
 * @param force also when jobs are running (their workers' later writes are then rejected)
 * @param batch the most keys to delete in this call
 */
record ObliterateQueueArgs(QueueKeys queue, boolean force, int batch) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.OBLITERATE_QUEUE;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.meta(), queue.active());
    }

    @Override
    public List<String> args() {
        return List.of(queue.prefix(), force ? "1" : "0", Integer.toString(batch));
    }
}
