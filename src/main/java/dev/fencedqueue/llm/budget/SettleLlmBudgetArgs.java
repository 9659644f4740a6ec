package dev.fencedqueue.llm.budget;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code settleLlmBudget-2.lua}: settles a call that ended. ARGV in order: the call's lease id, the tokens
 * the provider counted for it (-1: not known) and the tokens per minute configured (0: no limit).
 *
 * @param keys the budget's KEYS ({@link BudgetKey#keys}: its hash, its calls in flight)
 * @param limits its limits, as reserved
 * @param leaseId the call's id, as reserved
 * @param tokensUsed the tokens the provider counted for it, prompt and answer; -1 (or less) when not known
 */
record SettleLlmBudgetArgs(List<String> keys, BudgetLimits limits, String leaseId, long tokensUsed)
        implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.SETTLE_LLM_BUDGET;
    }

    @Override
    public List<String> args() {
        return List.of(leaseId, Long.toString(Math.max(-1, tokensUsed)), Long.toString(limits.tokensPerMinute()));
    }
}
