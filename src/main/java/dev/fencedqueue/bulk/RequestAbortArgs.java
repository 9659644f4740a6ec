package dev.fencedqueue.bulk;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code requestAbort-2.lua}: sets the abort flag of a running chunked job. KEYS: the job's hash and its
 * abort flag. ARGV: the flag's TTL (ms).
 *
 * @param queue the job's queue
 * @param jobId the job
 * @param ttl how long the flag lives, positive
 */
record RequestAbortArgs(QueueKeys queue, String jobId, Duration ttl) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.REQUEST_ABORT;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.job(jobId), queue.abortFlag(jobId));
    }

    @Override
    public List<String> args() {
        return List.of(Long.toString(ttl.toMillis()));
    }
}
