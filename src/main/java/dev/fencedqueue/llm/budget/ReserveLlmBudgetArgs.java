package dev.fencedqueue.llm.budget;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code reserveLlmBudget-3.lua}: reserves a call's place and tokens in an LLM budget. ARGV in order: the
 * requests and tokens per minute and the most calls in flight configured (0: no limit), the tokens to reserve, the
 * call's lease id, the lease (ms, at least 1), how long the fleet waits for an unavailable server (ms, 0 or more) and
 * the job the call is for ({@code ''} for none).
 *
 * @param keys the budget's KEYS ({@link BudgetKey#reserveKeys}: its hash, its calls in flight, its line)
 * @param limits its configured limits
 * @param tokens the tokens to reserve (negative counts as 0)
 * @param leaseId the call's id, unique
 * @param lease how long the lease holds unless renewed (under 1 ms counts as 1 ms)
 * @param unavailableTimeout how long the fleet waits for a server that refuses or fails every call
 * @param jobId the job the call is for, which joins the budget's line when the call is held back; {@code null} for none
 */
record ReserveLlmBudgetArgs(List<String> keys, BudgetLimits limits, long tokens, String leaseId, Duration lease,
        Duration unavailableTimeout, String jobId) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.RESERVE_LLM_BUDGET;
    }

    @Override
    public List<String> args() {
        return List.of(Long.toString(limits.requestsPerMinute()), Long.toString(limits.tokensPerMinute()),
                Long.toString(limits.maxConcurrent()), Long.toString(Math.max(0, tokens)), leaseId,
                Long.toString(Math.max(1, lease.toMillis())),
                Long.toString(Math.max(0, unavailableTimeout.toMillis())), jobId == null ? "" : jobId);
    }
}
