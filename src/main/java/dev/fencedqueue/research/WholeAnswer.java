package dev.fencedqueue.research;

import dev.fencedqueue.llm.LlmException;
import dev.fencedqueue.llm.LlmSpan;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Asks the LLM one prompt, in the protocol {@code fq.llm.protocol} names ({@link AnswerProtocol}), and returns its
 * whole answer as text, published nowhere: a step of a job whose output is not that text (a deep research job's
 * plan). {@code research}: the {@code summary}; {@code openai}: the streamed content; {@code responses}: the output
 * text of a background response. Cancelling the returned {@code Uni} closes the LLM's stream.
 */
@ApplicationScoped
public class WholeAnswer {

    private final AnswerProtocol protocol;

    public WholeAnswer(AnswerProtocol protocol) {
        this.protocol = protocol;
    }

    /**
     * @param prompt the prompt, sent as the user's question, must not be {@code null}
     * @param jobId the job that asks, sent as {@code X-Request-ID} for the server's logs
     * @param trace the asking attempt's context ({@code JobContext.traceContext()}): the call's span is its child
     * @return the answer's text, never {@code null}; fails with {@link LlmException} when the LLM ends without an
     *         answer (or fails it), and as the protocol's client says when the call cannot be made
     */
    public Uni<String> ask(String prompt, String jobId, Context trace) {
        LlmSpan span = protocol.span(trace);
        return span.around(protocol.text(prompt, jobId), true);
    }
}
