package dev.fencedqueue.bulk;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code chunkGate-2.lua}: reads, right before a chunk, whether an operator asked the job to stop and its
 * current throttle. KEYS: the job's abort flag and its hash; no ARGV.
 *
 * @param queue the job's queue
 * @param jobId the job
 */
record ChunkGateArgs(QueueKeys queue, String jobId) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.CHUNK_GATE;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.abortFlag(jobId), queue.job(jobId));
    }

    @Override
    public List<String> args() {
        return List.of();
    }
}
