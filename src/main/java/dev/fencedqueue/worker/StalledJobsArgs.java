package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.queue.QueueContext;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code moveStalledJobsToWait-9.lua}: one round of the stalled-job check. ARGV in order: the queue's key
 * prefix, the most times a job may stall, the stalled interval (ms), the job event stream's maximum length (entries),
 * the revoked channel and the queue event stream's maximum length (entries).
 *
 * @param ctx the queue
 * @param maxStalledCount the most times a job may stall: one that stalls more often fails
 * @param stalledInterval how often the check runs (its rounds are no closer than this)
 */
record StalledJobsArgs(QueueContext ctx, int maxStalledCount, Duration stalledInterval) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.MOVE_STALLED_JOBS_TO_WAIT;
    }

    @Override
    public List<String> keys() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.stalled(), keys.waitList(), keys.active(), keys.prioritized(), keys.failed(),
                keys.stalledCheck(), keys.marker(), keys.meta(), keys.events());
    }

    @Override
    public List<String> args() {
        QueueKeys keys = ctx.keys();
        return List.of(keys.prefix(), Integer.toString(maxStalledCount), Long.toString(stalledInterval.toMillis()),
                ctx.streamLengthArg(), keys.revokedChannel(), ctx.queueEventsArg());
    }
}
