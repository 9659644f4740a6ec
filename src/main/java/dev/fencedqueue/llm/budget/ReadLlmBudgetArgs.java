package dev.fencedqueue.llm.budget;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code readLlmBudget-2.lua}: reads an LLM budget as an operator sees it, without changing it. ARGV in
 * order: the requests and the tokens per minute configured (0: no limit).
 *
 * @param keys the budget's KEYS ({@link BudgetKey#keys}: its hash, its calls in flight)
 * @param limits this instance's configured limits
 */
record ReadLlmBudgetArgs(List<String> keys, BudgetLimits limits) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.READ_LLM_BUDGET;
    }

    @Override
    public List<String> args() {
        return List.of(Long.toString(limits.requestsPerMinute()), Long.toString(limits.tokensPerMinute()));
    }
}
