package dev.fencedqueue.worker;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code moveToCompleted-8.lua}: completes one or more jobs of a worker, each fenced on its own, and
 * activates the worker's next jobs. ARGV in order: the queue's key prefix, the job and queue event streams' maximum
 * lengths (entries), the next jobs' count, their lock token prefix, the lock duration (ms) and the worker id; then five
 * per job: its id, lock token, fencing token, return value (JSON) and the data of its {@code completed} event ('' for
 * a job without an event stream).
 *
 * @param keys the script's KEYS, {@link #keysOf} the queue (built once per worker)
 * @param prefix the queue's key prefix
 * @param streamLength the job event stream's maximum length, entries, as text
 * @param queueEvents the queue event stream's maximum length, entries, as text
 * @param next the worker's next jobs to activate in the same call
 * @param jobs the jobs to complete, at least one
 */
record MoveToCompletedArgs(List<String> keys, String prefix, String streamLength, String queueEvents, NextJobs next,
        List<Completed> jobs) implements ScriptCall {

    /**
     * One job to complete.
     *
     * @param job the attempt that completed it
     * @param returnValue its return value (JSON)
     * @param event the data of its {@code completed} event, or {@code ""} when it keeps no event stream
     */
    record Completed(ActiveJob job, String returnValue, String event) {
    }

    /**
     * @param keys the queue's key layout
     * @return the script's KEYS for that queue
     */
    static List<String> keysOf(QueueKeys keys) {
        return List.of(keys.active(), keys.completed(), keys.waitList(), keys.prioritized(), keys.delayed(),
                keys.marker(), keys.meta(), keys.events());
    }

    @Override
    public LuaScript script() {
        return LuaScript.MOVE_TO_COMPLETED;
    }

    @Override
    public List<String> args() {
        List<String> args = new ArrayList<>(7 + 5 * jobs.size());
        Collections.addAll(args, prefix, streamLength, queueEvents, Integer.toString(next.count()), next.lockPrefix(),
                next.lockDurationArg(), next.workerId());
        for (Completed completed : jobs) {
            ActiveJob job = completed.job();
            Collections.addAll(args, job.id(), job.lockToken(), Long.toString(job.fencingToken()),
                    completed.returnValue(), completed.event());
        }
        return args;
    }
}
