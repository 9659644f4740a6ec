package dev.fencedqueue.llm;

import java.net.URI;
import java.util.function.Function;
import java.util.function.Supplier;

import io.smallrye.mutiny.Uni;

/**
 * What a streamed LLM call that generates goes through in {@link LlmConnector}: in the application, the fleet's
 * budget, pause and circuit ({@code dev.fencedqueue.llm.budget.LlmBudgetGate}); {@link #NONE} lets every call through.
 */
public interface CallGate {

    /** A gate that lets every call through and leaves every refusal as it is: for connectors made outside CDI. */
    CallGate NONE = new CallGate() {
        @Override
        public Uni<LlmExchange> around(URI url, String body, String jobId, Supplier<Uni<LlmExchange>> call) {
            return call.get();
        }

        @Override
        public LlmException refused(LlmUnavailableException refusal, Function<String, String> headers) {
            return refusal;
        }
    };

    /**
     * @param url the call's URL, absolute
     * @param body the request body, JSON text
     * @param jobId the job the call is for (its {@code X-Request-ID}); {@code null} for none
     * @param call opens the call (the connector's guarded opening, retries included)
     * @return the open exchange, as {@code call} gives it; fails with {@link LlmWaitException} when the call cannot go
     *         on yet, else as {@code call} does
     */
    Uni<LlmExchange> around(URI url, String body, String jobId, Supplier<Uni<LlmExchange>> call);

    /**
     * Tells the refusal of one try of a call apart, before the connector would retry it: what is not an
     * {@link LlmUnavailableException} is not retried.
     *
     * @param refusal the server's answer ({@code 429}, or a {@code 5xx} but {@code 501})
     * @param headers the response's headers by name (case-insensitive), {@code null} for a header it lacks
     * @return the failure the try fails with
     */
    LlmException refused(LlmUnavailableException refusal, Function<String, String> headers);
}
