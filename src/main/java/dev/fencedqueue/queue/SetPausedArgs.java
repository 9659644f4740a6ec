package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code setPaused-5.lua}: pauses or resumes a queue. ARGV in order: '1' to pause or '0' to resume, and the
 * queue event stream's maximum length (entries).
 *
 * @param ctx the queue
 * @param paused {@code true} to pause, {@code false} to resume
 */
record SetPausedArgs(QueueContext ctx, boolean paused) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.SET_PAUSED;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.meta(), keys.marker(), keys.waitList(), keys.prioritized(), keys.events());
    }

    @Override
    public List<String> args() {
        return List.of(paused ? "1" : "0", ctx.queueEventsArg());
    }
}
