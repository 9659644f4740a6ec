package dev.fencedqueue.llm.budget;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code correctLlmBudget-1.lua}: corrects an LLM budget with what its provider said. ARGV in order: the
 * provider's request limit per minute (0: not given), the requests it says remain (-1: not given), its token limit per
 * minute (0: not given), the tokens it says remain (-1: not given), the requests and tokens per minute configured
 * (0: no limit), and the time until the provider's request and token limits are full again (ms, -1: not given).
 *
 * @param keys the budget's hash, its one KEY
 * @param limits its configured limits
 * @param provider what the provider's last answer said
 */
record CorrectLlmBudgetArgs(List<String> keys, BudgetLimits limits, ProviderLimits provider) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.CORRECT_LLM_BUDGET;
    }

    @Override
    public List<String> args() {
        return List.of(Long.toString(provider.requestLimit()), Long.toString(provider.requestsRemaining()),
                Long.toString(provider.tokenLimit()), Long.toString(provider.tokensRemaining()),
                Long.toString(limits.requestsPerMinute()), Long.toString(limits.tokensPerMinute()),
                Long.toString(provider.requestsReset()), Long.toString(provider.tokensReset()));
    }
}
