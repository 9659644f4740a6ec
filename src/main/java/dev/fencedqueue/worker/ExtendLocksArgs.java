package dev.fencedqueue.worker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code extendLocks-1.lua}: renews the locks of all a worker's active jobs of one queue in one round trip.
 * ARGV in order: the queue's key prefix and the lock duration (ms), then four per job: its id, lock token, fencing
 * token and the LLM tokens its attempt has spent so far ('' when the worker counts none).
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
