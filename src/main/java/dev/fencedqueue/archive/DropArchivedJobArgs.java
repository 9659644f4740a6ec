package dev.fencedqueue.archive;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code dropArchivedJob-3.lua}: drops a finished job from Redis once the archive holds it. ARGV in order:
 * the queue's key prefix, the job id and the job's {@code finishedOn} as archived (ms on the Redis clock, as the hash
 * holds it; '' to only take a gone job's id out of the finished sets).
 *
 * @param queue the job's queue
 * @param jobId the job
 * @param finishedOn the job's {@code finishedOn} as archived, or {@code ""} to only forget a job that is gone
 */
record DropArchivedJobArgs(QueueKeys queue, String jobId, String finishedOn) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.DROP_ARCHIVED_JOB;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.job(jobId), queue.completed(), queue.failed());
    }

    @Override
    public List<String> args() {
        return List.of(queue.prefix(), jobId, finishedOn);
    }
}
