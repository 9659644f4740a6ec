package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * The calls of the worker's Lua scripts ({@code src/main/resources/lua/}), one record per script, each packing its
 * script's KEYS and ARGV ({@link ScriptCall}), and the jobs a call activates besides its own transition
 * ({@link NextJobs}).
 */
final class WorkerScripts {

    private WorkerScripts() {
    }

    /**
     * The jobs a worker's script call activates for it besides its own transition ({@code moveToActive},
     * {@code moveToCompleted}, {@code moveToFailed}): how many, for which worker, under which lock.
     *
     * @param workerId the worker's id, recorded with each job's run
     * @param count the most jobs to activate, 0 for none
     * @param lockPrefix the call's lock token prefix (random per call; a job's lock token is {@code <prefix>:<jobId>})
     * @param lockDuration how long each job's lock holds before it must be renewed
     */
    record NextJobs(String workerId, int count, String lockPrefix, Duration lockDuration) {

        /** @return {@link #lockDuration()} as a script argument, in ms */
        String lockDurationArg() {
            return Long.toString(lockDuration.toMillis());
        }
    }

    /**
     * A call of {@code moveToActive-7.lua}: activates up to {@code next.count()} ready jobs for a worker. ARGV in
     * order: the queue's key prefix, the most jobs to activate, their lock token prefix, the lock duration (ms), the
     * worker id, and the job and queue event streams' maximum lengths (entries).
     *
     * @param queue the queue's key layout
     * @param next the jobs to activate: how many (the worker's free slots), for which worker, under which lock
     * @param maxStreamLength the job event stream's maximum length, entries
     * @param maxQueueEvents the queue event stream's maximum length, entries
     */
    record MoveToActiveArgs(QueueKeys queue, NextJobs next, int maxStreamLength, int maxQueueEvents)
            implements ScriptCall {

        @Override
        public LuaScript script() {
            return LuaScript.MOVE_TO_ACTIVE;
        }

        @Override
        public List<String> keys() {
            return List.of(queue.waitList(), queue.active(), queue.prioritized(), queue.delayed(), queue.marker(),
                    queue.meta(), queue.events());
        }

        @Override
        public List<String> args() {
            return List.of(queue.prefix(), Integer.toString(next.count()), next.lockPrefix(), next.lockDurationArg(),
                    next.workerId(), Integer.toString(maxStreamLength), Integer.toString(maxQueueEvents));
        }
    }

    /**
     * A call of {@code extendLocks-1.lua}: renews the locks of all a worker's active jobs of one queue in one round
     * trip. ARGV in order: the queue's key prefix and the lock duration (ms), then four per job: its id, lock token,
     * fencing token and the LLM tokens its attempt has spent so far ('' when the worker counts none).
     *
     * @param queue the queue's key layout
     * @param lockDurationMillis how long each lock holds from now, ms
     * @param jobs the jobs whose locks to renew, not empty
     */
    record ExtendLocksArgs(QueueKeys queue, long lockDurationMillis, Collection<ActiveJob> jobs) implements ScriptCall {

        @Override
        public LuaScript script() {
            return LuaScript.EXTEND_LOCKS;
        }

        @Override
        public List<String> keys() {
            return List.of(queue.stalled());
        }

        @Override
        public List<String> args() {
            List<String> args = new ArrayList<>(2 + 4 * jobs.size());
            Collections.addAll(args, queue.prefix(), Long.toString(lockDurationMillis));
            for (ActiveJob job : jobs) {
                long tokens = job.tokensSpent();
                Collections.addAll(args, job.id(), job.lockToken(), Long.toString(job.fencingToken()),
                        tokens < 0 ? "" : Long.toString(tokens));
            }
            return args;
        }
    }

    /**
     * A call of {@code moveToCompleted-8.lua}: completes one or more jobs of a worker, each fenced on its own, and
     * activates the worker's next jobs. ARGV in order: the queue's key prefix, the job and queue event streams' maximum
     * lengths (entries), the next jobs' count, their lock token prefix, the lock duration (ms) and the worker id; then
     * five per job: its id, lock token, fencing token, return value (JSON) and the data of its {@code completed} event
     * ('' for a job without an event stream).
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
            Collections.addAll(args, prefix, streamLength, queueEvents, Integer.toString(next.count()),
                    next.lockPrefix(), next.lockDurationArg(), next.workerId());
            for (Completed completed : jobs) {
                ActiveJob job = completed.job();
                Collections.addAll(args, job.id(), job.lockToken(), Long.toString(job.fencingToken()),
                        completed.returnValue(), completed.event());
            }
            return args;
        }
    }

    /**
     * A call of {@code moveToFailed-10.lua}: ends a failed attempt (retried after {@code retryDelay}, or failed for
     * good) and activates the worker's next jobs. ARGV in order: the queue's key prefix, the job id, its lock token,
     * its fencing token, the reason, the retry delay (ms; -1 fails for good), the job and queue event streams' maximum
     * lengths (entries), the worker id, the next jobs' count, their lock token prefix and the lock duration (ms).
     *
     * @param queue the queue's key layout
     * @param job the attempt that failed
     * @param reason why it failed (text)
     * @param retryDelayMs how long until the next attempt, ms; -1 to fail the job for good
     * @param next the worker's next jobs to activate in the same call
     * @param maxStreamLength the job event stream's maximum length, entries
     * @param maxQueueEvents the queue event stream's maximum length, entries
     */
    record MoveToFailedArgs(QueueKeys queue, ActiveJob job, String reason, long retryDelayMs, NextJobs next,
            int maxStreamLength, int maxQueueEvents) implements ScriptCall {

        @Override
        public LuaScript script() {
            return LuaScript.MOVE_TO_FAILED;
        }

        @Override
        public List<String> keys() {
            String id = job.id();
            return List.of(queue.active(), queue.waitList(), queue.delayed(), queue.prioritized(), queue.failed(),
                    queue.marker(), queue.meta(), queue.job(id), queue.events(id), queue.events());
        }

        @Override
        public List<String> args() {
            return List.of(queue.prefix(), job.id(), job.lockToken(), Long.toString(job.fencingToken()), reason,
                    Long.toString(retryDelayMs), Integer.toString(maxStreamLength), Integer.toString(maxQueueEvents),
                    next.workerId(), Integer.toString(next.count()), next.lockPrefix(), next.lockDurationArg());
        }
    }

    /**
     * A call of {@code handBackJob-7.lua}: hands a job back to the front of its wait list without counting an attempt.
     * ARGV in order: the job id, its lock token, its fencing token, the queue event stream's maximum length (entries)
     * and how long the queue's dispatch is held (ms, 0 for not held).
     *
     * @param queue the queue's key layout
     * @param job the attempt that hands its job back
     * @param hold how long the queue's dispatch is held, fleet-wide; zero (or negative) for not held
     * @param maxQueueEvents the queue event stream's maximum length, entries
     */
    record HandBackJobArgs(QueueKeys queue, ActiveJob job, Duration hold, int maxQueueEvents) implements ScriptCall {

        @Override
        public LuaScript script() {
            return LuaScript.HAND_BACK_JOB;
        }

        @Override
        public List<String> keys() {
            return List.of(queue.active(), queue.waitList(), queue.prioritized(), queue.marker(), queue.meta(),
                    queue.job(job.id()), queue.events());
        }

        @Override
        public List<String> args() {
            return List.of(job.id(), job.lockToken(), Long.toString(job.fencingToken()),
                    Integer.toString(maxQueueEvents), Long.toString(Math.max(0, hold.toMillis())));
        }
    }

    /**
     * A call of {@code moveStalledJobsToWait-9.lua}: one round of the stalled-job check. ARGV in order: the queue's key
     * prefix, the most times a job may stall, the stalled interval (ms), the job event stream's maximum length
     * (entries), the revoked channel and the queue event stream's maximum length (entries).
     *
     * @param queue the queue's key layout
     * @param maxStalledCount the most times a job may stall: one that stalls more often fails
     * @param stalledInterval how often the check runs (its rounds are no closer than this)
     * @param maxStreamLength the job event stream's maximum length, entries
     * @param maxQueueEvents the queue event stream's maximum length, entries
     */
    record StalledJobsArgs(QueueKeys queue, int maxStalledCount, Duration stalledInterval, int maxStreamLength,
            int maxQueueEvents) implements ScriptCall {

        @Override
        public LuaScript script() {
            return LuaScript.MOVE_STALLED_JOBS_TO_WAIT;
        }

        @Override
        public List<String> keys() {
            return List.of(queue.stalled(), queue.waitList(), queue.active(), queue.prioritized(), queue.failed(),
                    queue.stalledCheck(), queue.marker(), queue.meta(), queue.events());
        }

        @Override
        public List<String> args() {
            return List.of(queue.prefix(), Integer.toString(maxStalledCount), Long.toString(stalledInterval.toMillis()),
                    Integer.toString(maxStreamLength), queue.revokedChannel(), Integer.toString(maxQueueEvents));
        }
    }
}
