package dev.fencedqueue.llm.budget;

/**
 * What reserving a call's share of an LLM budget gave.
 *
 * @param reserved whether the call may start now (it then holds its lease until it settles)
 * @param waitMillis when not: how long to wait before the budget may admit it, ms (0 when reserved)
 * @param reason when not: {@code unavailable} (the server has been unavailable longer than the fleet waits for it:
 *        the call should fail, wait 0), {@code paused} (the provider said wait), {@code open} (the fleet's circuit is
 *        open: wait for the next probe), {@code concurrency} (too many calls in flight), {@code requests} or
 *        {@code tokens} (that limit is spent); {@code null} when reserved
 * @param requestsLeft when reserved: the requests the budget still admits, -1 without a request limit
 * @param tokensLeft when reserved: the tokens it still admits, -1 without a token limit
 * @param unwell when reserved: whether the server counted as unavailable (so that the call's success should close the
 *        fleet's circuit, {@link LlmBudget#close})
 */
public record Reservation(boolean reserved, long waitMillis, String reason, long requestsLeft, long tokensLeft,
        boolean unwell) {
}
