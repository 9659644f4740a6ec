package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code rateLimit-1.lua}: counts one start of a client's against its current fixed window. KEYS: the
 * counter of the client's window. ARGV in order: the limit (starts per window) and the window (ms).
 *
 * @param queue the queue whose starts are counted
 * @param client the client's address
 * @param limit the most starts a window admits
 * @param window the window's length
 */
record RateLimitArgs(QueueKeys queue, String client, int limit, Duration window) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.RATE_LIMIT;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.startRateLimit(client));
    }

    @Override
    public List<String> args() {
        return List.of(Integer.toString(limit), Long.toString(window.toMillis()));
    }
}
