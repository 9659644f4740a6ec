package dev.fencedqueue.queue;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code readyJobs-3.lua}: reads the ready jobs of every tenant of a queue. ARGV in order: the queue's key
 * prefix, what to read ({@code count}, {@code waiting}, {@code prioritized}, {@code oldest} or {@code tenant}), the
 * first and last index of a page (for {@code waiting} and {@code prioritized}, from 0, inclusive) and the tenant (for
 * {@code tenant}).
 *
 * @param queue the queue's key layout
 * @param mode what to read, as above
 * @param start the index of a page's first job (0 when not a page)
 * @param stop the index of a page's last job, inclusive (0 when not a page)
 * @param tenant the tenant to read, {@code ""} for another mode
 */
record ReadyJobsArgs(QueueKeys queue, String mode, int start, int stop, String tenant) implements ScriptCall {

    /**
     * @param queue the queue's key layout
     * @param mode {@code count} or {@code oldest}
     * @return the call that reads that
     */
    static ReadyJobsArgs of(QueueKeys queue, String mode) {
        return new ReadyJobsArgs(queue, mode, 0, 0, "");
    }

    @Override
    public LuaScript script() {
        return LuaScript.READY_JOBS;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.waitList(), queue.prioritized(), queue.tenantsReady());
    }

    @Override
    public List<String> args() {
        return List.of(queue.prefix(), mode, Integer.toString(start), Integer.toString(stop), tenant);
    }
}
