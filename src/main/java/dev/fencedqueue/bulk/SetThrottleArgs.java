package dev.fencedqueue.bulk;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code setThrottle-1.lua}: sets the throttle of a chunked job that has not finished. KEYS: the job's hash.
 * ARGV: the throttle (JSON text, {@link Throttle}'s fields: {@code pauseBetweenChunksMs} in ms,
 * {@code maxItemsPerSecond} in items per second or {@code null}).
 *
 * @param queue the job's queue
 * @param jobId the job
 * @param throttle the throttle, as JSON text
 */
record SetThrottleArgs(QueueKeys queue, String jobId, String throttle) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.SET_THROTTLE;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.job(jobId));
    }

    @Override
    public List<String> args() {
        return List.of(throttle);
    }
}
