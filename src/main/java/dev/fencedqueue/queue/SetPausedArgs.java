package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code setPaused-5.lua}: pauses or resumes a queue. ARGV in order: '1' to pause or '0' to resume, and the
 * queue event stream's maximum length (entries).
 *
 * @param queue the queue's key layout
 * @param paused {@code true} to pause, {@code false} to resume
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record SetPausedArgs(QueueKeys queue, boolean paused, int maxQueueEvents) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.SET_PAUSED;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.meta(), queue.marker(), queue.waitList(), queue.prioritized(), queue.events());
    }

    @Override
    public List<String> args() {
        return List.of(paused ? "1" : "0", Integer.toString(maxQueueEvents));
    }
}
