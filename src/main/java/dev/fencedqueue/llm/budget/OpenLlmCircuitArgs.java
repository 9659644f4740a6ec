package dev.fencedqueue.llm.budget;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code openLlmCircuit-1.lua}: opens the fleet's circuit of an LLM budget, or keeps it open. ARGV in order:
 * the first probe interval (ms, at least 1), the longest probe interval (ms, at least the first) and the failed call's
 * lease id.
 *
 * @param keys the budget's hash, its one KEY
 * @param leaseId the failed call's lease id (as reserved)
 * @param delay the first interval between probes (under 1 ms counts as 1 ms)
 * @param maxDelay the longest interval between probes (under {@code delay} counts as {@code delay})
 */
record OpenLlmCircuitArgs(List<String> keys, String leaseId, Duration delay, Duration maxDelay) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.OPEN_LLM_CIRCUIT;
    }

    @Override
    public List<String> args() {
        return List.of(Long.toString(Math.max(1, delay.toMillis())),
                Long.toString(Math.max(delay.toMillis(), maxDelay.toMillis())), leaseId);
    }
}
