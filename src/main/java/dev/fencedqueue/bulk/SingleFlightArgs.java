package dev.fencedqueue.bulk;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of one of the two scripts of a single-flight key, which share their one KEY (the single-flight key) and take
 * the caller's job id first:
 * <ul>
 * <li>{@code acquireSingleFlight-1.lua}: ARGV the job id and the queue's key prefix ({@code fq:{name}:}, under which
 * the holder's hash is read);</li>
 * <li>{@code releaseSingleFlight-1.lua}: ARGV the job id.</li>
 * </ul>
 * Built by the factories.
 *
 * @param script the script
 * @param queue the job's queue
 * @param key the single-flight key's name, as the job's options give it
 * @param jobId the caller, a running job
 */
record SingleFlightArgs(LuaScript script, QueueKeys queue, String key, String jobId) implements ScriptCall {

    /** @return the {@code acquireSingleFlight} call of a running job for {@code key} */
    static SingleFlightArgs acquire(QueueKeys queue, String key, String jobId) {
        return new SingleFlightArgs(LuaScript.ACQUIRE_SINGLE_FLIGHT, queue, key, jobId);
    }

    /** @return the {@code releaseSingleFlight} call of a job for {@code key} */
    static SingleFlightArgs release(QueueKeys queue, String key, String jobId) {
        return new SingleFlightArgs(LuaScript.RELEASE_SINGLE_FLIGHT, queue, key, jobId);
    }

    @Override
    public List<String> keys() {
        return List.of(queue.singleFlight(key));
    }

    @Override
    public List<String> args() {
        return script == LuaScript.ACQUIRE_SINGLE_FLIGHT ? List.of(jobId, queue.prefix()) : List.of(jobId);
    }
}
