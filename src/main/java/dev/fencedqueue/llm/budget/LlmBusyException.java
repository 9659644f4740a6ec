package dev.fencedqueue.llm.budget;

import java.time.Duration;

import dev.fencedqueue.llm.LlmException;
import dev.fencedqueue.llm.LlmUnavailableException;

/**
 * The LLM server refused a call with a time to wait ({@code 429}, or a {@code 503} with {@code Retry-After},
 * {@code retry-after-ms} or OpenAI's reset headers) while the fleet's budget is kept ({@link LlmBudgetGate}): the call
 * is not retried by its connector, since the whole fleet waits for the server ({@link LlmBudgetGate#refused}); its
 * job waits in the queue instead. Not a failure of the server for the circuit breaker.
 */
public class LlmBusyException extends LlmException {

    private final transient Duration wait;
    private final transient ProviderLimits provider;
    private final LlmUnavailableException refusal;

    /**
     * @param refusal the server's answer (not this exception's cause: SmallRye Fault Tolerance looks through causes,
     *        and would retry it)
     * @param wait how long it asked to wait, 0 or more
     * @param provider what its rate-limit headers said
     */
    public LlmBusyException(LlmUnavailableException refusal, Duration wait, ProviderLimits provider) {
        super(refusal.getMessage() + "; it asked to wait " + wait.toMillis() + " ms");
        this.refusal = refusal;
        this.wait = wait;
        this.provider = provider;
    }

    /** @return how long the server asked to wait */
    public Duration waitTime() {
        return wait;
    }

    /** @return what the server's rate-limit headers said of its limits */
    public ProviderLimits provider() {
        return provider;
    }

    /** @return the server's refusal, as it would fail the attempt */
    public LlmUnavailableException refusal() {
        return refusal;
    }
}
