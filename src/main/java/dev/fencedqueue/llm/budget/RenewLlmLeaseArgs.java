package dev.fencedqueue.llm.budget;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code renewLlmLease-1.lua}: renews the lease of an LLM call in flight. ARGV in order: the call's lease id
 * and how long the lease holds from now (ms, at least 1).
 *
 * @param keys the budget's calls in flight, its one KEY
 * @param leaseId the call's id, as reserved
 * @param lease how long the lease holds from now (under 1 ms counts as 1 ms)
 */
record RenewLlmLeaseArgs(List<String> keys, String leaseId, Duration lease) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.RENEW_LLM_LEASE;
    }

    @Override
    public List<String> args() {
        return List.of(leaseId, Long.toString(Math.max(1, lease.toMillis())));
    }
}
