package dev.fencedqueue.llm;

import java.time.Duration;
import java.util.Objects;

/**
 * The call cannot go on yet, and its caller should try it again after {@link #waitTime()}: the fleet's LLM budget
 * cannot admit it, the server asked the fleet to wait, or the server was found down and the fleet's circuit is open
 * (the fleet's budget decides, {@code LlmBudgetGate}). Not a failure of the server, and nothing the call did: a job
 * whose call fails with it waits in the queue without counting an attempt (the research processor hands it back as the
 * worker's {@code RateLimitedException} of the same wait and reason).
 */
public class LlmWaitException extends RuntimeException {

    private final transient Duration wait;

    /**
     * @param wait how long to wait before the call is tried again, not {@code null} (0 or less: at once)
     * @param reason which limit, in the product's words (for the attempt's span and logs), not {@code null}
     */
    public LlmWaitException(Duration wait, String reason) {
        super(Objects.requireNonNull(reason, "reason"), null, false, false);
        this.wait = Objects.requireNonNull(wait, "wait");
    }

    /** @return how long to wait before the call is tried again, as the budget said */
    public Duration waitTime() {
        return wait;
    }
}
