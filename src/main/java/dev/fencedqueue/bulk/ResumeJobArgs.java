package dev.fencedqueue.bulk;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code resumeJob-8.lua}: moves an aborted chunked job back to the queue, its abort flag cleared. ARGV in
 * order: the job id and the queue event stream's maximum length (entries).
 *
 * @param queue the job's queue
 * @param jobId the job
 * @param maxQueueEvents the queue event stream's maximum length, entries
 */
record ResumeJobArgs(QueueKeys queue, String jobId, int maxQueueEvents) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.RESUME_JOB;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.failed(), queue.waitList(), queue.prioritized(), queue.marker(), queue.meta(),
                queue.job(jobId), queue.events(), queue.abortFlag(jobId));
    }

    @Override
    public List<String> args() {
        return List.of(jobId, Integer.toString(maxQueueEvents));
    }
}
