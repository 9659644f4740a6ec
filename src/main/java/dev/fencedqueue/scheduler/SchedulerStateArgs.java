package dev.fencedqueue.scheduler;

import java.util.List;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of one of the scripts that change a job scheduler's state, which share their KEYS (the schedulers hash, the
 * schedules set, the scheduler's state hash) and take the scheduler id first:
 * <ul>
 * <li>{@code upsertScheduler-3.lua}: ARGV the id, the spec (JSON) and the next tick (ms since the epoch, -1 for
 * none);</li>
 * <li>{@code pauseScheduler-3.lua}: ARGV the id, '1' to pause or '0' to resume, and when resuming the next tick (ms
 * since the epoch, -1 for none);</li>
 * <li>{@code removeScheduler-3.lua}: ARGV the id.</li>
 * </ul>
 * Built by the factories, which say each argument's meaning.
 *
 * @param script the script
 * @param queue the scheduler's queue
 * @param schedulerId the scheduler
 * @param rest the ARGV after the id
 */
record SchedulerStateArgs(LuaScript script, QueueKeys queue, String schedulerId, List<String> rest)
        implements ScriptCall {

    /**
     * @param queue the scheduler's queue
     * @param schedulerId the scheduler
     * @param spec its spec (JSON text)
     * @param next its next tick, ms since the epoch; -1 when it has none (past its end)
     * @return the {@code upsertScheduler} call
     */
    static SchedulerStateArgs upsert(QueueKeys queue, String schedulerId, String spec, long next) {
        return new SchedulerStateArgs(LuaScript.UPSERT_SCHEDULER, queue, schedulerId,
                List.of(spec, Long.toString(next)));
    }

    /**
     * @param queue the scheduler's queue
     * @param schedulerId the scheduler
     * @param paused {@code true} to pause, {@code false} to resume
     * @param next when resuming, its next tick, ms since the epoch; -1 when it has none
     * @return the {@code pauseScheduler} call
     */
    static SchedulerStateArgs pause(QueueKeys queue, String schedulerId, boolean paused, long next) {
        return new SchedulerStateArgs(LuaScript.PAUSE_SCHEDULER, queue, schedulerId,
                List.of(paused ? "1" : "0", Long.toString(next)));
    }

    /**
     * @param queue the scheduler's queue
     * @param schedulerId the scheduler
     * @return the {@code removeScheduler} call
     */
    static SchedulerStateArgs remove(QueueKeys queue, String schedulerId) {
        return new SchedulerStateArgs(LuaScript.REMOVE_SCHEDULER, queue, schedulerId, List.of());
    }

    @Override
    public List<String> keys() {
        return List.of(queue.schedulers(), queue.schedules(), queue.schedulerState(schedulerId));
    }

    @Override
    public List<String> args() {
        return rest.isEmpty() ? List.of(schedulerId) : List.of(schedulerId, rest.get(0), rest.get(1));
    }
}
