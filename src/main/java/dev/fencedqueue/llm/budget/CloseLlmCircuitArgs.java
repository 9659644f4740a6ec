package dev.fencedqueue.llm.budget;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code closeLlmCircuit-1.lua}: closes the fleet's circuit of an LLM budget on a call's success. No ARGV.
 *
 * @param keys the budget's hash, its one KEY
 */
record CloseLlmCircuitArgs(List<String> keys) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.CLOSE_LLM_CIRCUIT;
    }

    @Override
    public List<String> args() {
        return List.of();
    }
}
