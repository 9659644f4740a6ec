package dev.fencedqueue.llm.budget;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code pauseLlmBudget-1.lua}: pauses every new call of an LLM budget for the whole fleet. ARGV: how long
 * to pause from now (ms, 0 or more; the caller adds its jitter).
 *
 * @param keys the budget's hash, its one KEY
 * @param pause how long to pause from now (negative counts as 0)
 */
record PauseLlmBudgetArgs(List<String> keys, Duration pause) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.PAUSE_LLM_BUDGET;
    }

    @Override
    public List<String> args() {
        return List.of(Long.toString(Math.max(0, pause.toMillis())));
    }
}
