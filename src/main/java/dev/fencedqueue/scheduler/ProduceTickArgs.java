package dev.fencedqueue.scheduler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.fencedqueue.queue.AddJobArgs;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code produceTick-11.lua}: produces (or skips) one tick of a job scheduler. KEYS: the schedules set, the
 * scheduler's state hash, then the KEYS of {@code addJob} for the template's queue. ARGV in order: the scheduler id,
 * the tick it read and the tick after it (ms since the epoch, -1 for none), '1' to produce the job or '0' to skip the
 * tick, the most ticks that produce a job (0 = no limit), what a running job of the template's single-flight key does
 * to the tick ('skip:<key>', 'refuse:<key>' or ''), then the ARGV of {@code addJob} ({@link AddJobArgs}).
 *
 * @param queue the scheduler's queue
 * @param schedulerId the scheduler
 * @param tick the tick it read, ms since the epoch
 * @param next the tick after it, ms since the epoch; -1 when there is none
 * @param produce {@code true} to produce the tick's job, {@code false} to skip the tick (a missed one)
 * @param limit the most ticks that produce a job, 0 for no limit
 * @param singleFlight what a running job of the template's single-flight key does to the tick, as above
 * @param addJob the call of {@code addJob} for the tick's job, in the template's queue
 */
record ProduceTickArgs(QueueKeys queue, String schedulerId, long tick, long next, boolean produce, int limit,
        String singleFlight, AddJobArgs addJob) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.PRODUCE_TICK;
    }

    @Override
    public List<String> keys() {
        List<String> addJobKeys = addJob.keys();
        List<String> keys = new ArrayList<>(2 + addJobKeys.size());
        Collections.addAll(keys, queue.schedules(), queue.schedulerState(schedulerId));
        keys.addAll(addJobKeys);
        return keys;
    }

    @Override
    public List<String> args() {
        List<String> addJobArgs = addJob.args();
        List<String> args = new ArrayList<>(6 + addJobArgs.size());
        Collections.addAll(args, schedulerId, Long.toString(tick), Long.toString(next), produce ? "1" : "0",
                Integer.toString(limit), singleFlight);
        args.addAll(addJobArgs);
        return args;
    }
}
