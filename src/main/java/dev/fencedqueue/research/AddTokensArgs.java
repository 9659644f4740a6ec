package dev.fencedqueue.research;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code addTokens-5.lua}: counts what an attempt spent into its job and its tenant's counters. ARGV in
 * order: the outcome, the prompt, completion, lost and saved tokens, the takeover kind ('' for none), how long the
 * day's and the month's counters live (ms), the fencing token, the cost (micro-units, '' without prices) and the saved
 * tokens' cost (micro-units).
 *
 * @param queue the job's queue
 * @param jobId the job
 * @param fencingToken the attempt's fencing token, whose fair-dispatch charge its tokens settle
 * @param attempt what the attempt spent
 * @param day the id of the day whose counters it adds to ({@code TokenQuota.Period#id})
 * @param month the id of the month whose counters it adds to
 * @param dayCountersLive how long the day's counters live after their last write
 * @param monthCountersLive how long the month's counters live after their last write
 * @param cost what the attempt's tokens cost, in micro-units; empty when no prices are set (no cost is counted)
 * @param savedCost what the saved tokens would have cost, in micro-units
 */
record AddTokensArgs(QueueKeys queue, String jobId, long fencingToken, LlmTokens.Attempt attempt, String day,
        String month, Duration dayCountersLive, Duration monthCountersLive, OptionalLong cost, long savedCost)
        implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.ADD_TOKENS;
    }

    @Override
    public List<String> keys() {
        return List.of(queue.job(jobId), queue.tenantTokens(day), queue.tenantTokens(month), queue.tenantCost(day),
                queue.tenantCost(month));
    }

    @Override
    public List<String> args() {
        return List.of(attempt.outcome(), Long.toString(attempt.promptTokens()),
                Long.toString(attempt.completionTokens()), Long.toString(attempt.lostTokens()),
                Long.toString(attempt.savedTokens()),
                attempt.takeover() == null ? "" : attempt.takeover().value(), Long.toString(dayCountersLive.toMillis()),
                Long.toString(monthCountersLive.toMillis()), Long.toString(fencingToken),
                cost.isPresent() ? Long.toString(cost.getAsLong()) : "", Long.toString(savedCost));
    }
}
