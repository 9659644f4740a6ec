package dev.fencedqueue.llm.budget;

/**
 * An LLM budget as an operator sees it ({@link LlmBudgets#state}), read at one instant of the Redis clock.
 *
 * @param key the budget: endpoint and model
 * @param readAt when it was read, ms since the epoch (Redis clock)
 * @param requestLimit the request limit in force per minute (the configured one or the provider's, the smaller), 0 for
 *        none
 * @param requestsLeft the requests it admits now, -1 without a request limit
 * @param tokenLimit the token limit in force per minute, 0 for none
 * @param tokensLeft the tokens it admits now, -1 without a token limit
 * @param providerRequestLimit the provider's request limit per minute as its headers last gave it, 0 when never given
 * @param providerTokenLimit the provider's token limit per minute as its headers last gave it, 0 when never given
 * @param maxConcurrent the most calls at once configured on this instance, 0 for no limit
 * @param inFlight the calls in flight fleet-wide (leases not run out)
 * @param pausedUntil until when the provider asked the fleet to wait, ms since the epoch (Redis clock), 0 when not
 *        paused
 * @param openUntil while the fleet's circuit is open, when its next probe is due, ms since the epoch (Redis clock;
 *        earlier than {@code readAt} when a probe is under way); 0 when closed
 * @param probeInterval while it is open, the interval between probes, ms; 0 when closed
 * @param unavailableSince since when the server refused or failed every call, ms since the epoch (Redis clock), 0 when
 *        available
 */
public record BudgetState(BudgetKey key, long readAt, long requestLimit, long requestsLeft, long tokenLimit,
        long tokensLeft, long providerRequestLimit, long providerTokenLimit, long maxConcurrent, long inFlight,
        long pausedUntil, long openUntil, long probeInterval, long unavailableSince) {

    /** @return whether the fleet's circuit is open */
    public boolean circuitOpen() {
        return probeInterval > 0;
    }

    /** @return how long the server has refused or failed every call, ms; 0 when available */
    public long unavailableFor() {
        return unavailableSince == 0 ? 0 : Math.max(readAt - unavailableSince, 0);
    }
}
