package dev.fencedqueue.research;

import java.util.OptionalLong;
import java.util.function.Function;

import dev.fencedqueue.llm.ChatChunk;
import dev.fencedqueue.llm.LlmException;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.worker.JobContext;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * How research jobs ask the LLM in one protocol of {@code fq.llm.protocol}: one implementation per protocol
 * ({@code research}: {@link ResearchProtocolAnswers}, {@code openai}: {@link ChatResearch}, {@code responses}:
 * {@link ResponsesResearch}), chosen once at startup ({@link AnswerProtocols}), the bean research jobs ask. When the
 * worker cancels a job (its token went stale, it was aborted, the instance stops), or a caller cancels a returned
 * {@code Uni}, the LLM's stream is cancelled and its HTTP connection closed.
 */
public interface AnswerProtocol {

    /**
     * Answers a question as a job's published output: fenced {@code progress} events, then the result.
     *
     * @param context the attempt, must not be {@code null}
     * @param question the question, must not be {@code null}
     * @param mayContinue whether this run may continue an answer that earlier runs committed ({@code openai} and
     *        {@code responses}; the run then announces {@code resume} itself); {@code false} starts the answer, as the
     *        {@code research} protocol always does
     * @return the job's result; fails as the LLM call or a fenced write fails
     */
    Uni<Object> answer(JobContext context, String question, boolean mayContinue);

    /**
     * Starts the span of one call in this protocol ({@link LlmSpan}: its operation, provider, model and server).
     *
     * @param trace the asking attempt's context ({@code JobContext.traceContext()}), must not be {@code null}: the
     *        span is its child
     * @return the span, started
     * @throws LlmException when {@code fq.llm.url} is empty and the simulator is off
     */
    LlmSpan span(Context trace);

    /**
     * Asks one prompt and gives its whole answer as text, published nowhere, without a span of its own.
     *
     * @param prompt the prompt, sent as the user's question, must not be {@code null}
     * @param jobId the job that asks, sent as {@code X-Request-ID} for the server's logs
     * @return the answer's text ({@code research}: the summary; {@code openai}: the streamed content;
     *         {@code responses}: the output text of a background response) and the tokens the call spent, when the
     *         server reported them; fails with {@link LlmException} when the LLM ends without an answer (or fails
     *         it), and as the protocol's client says when the call cannot be made
     */
    Uni<AskedText> text(String prompt, String jobId);

    /**
     * Asks one prompt and gives its answer as it is written, published nowhere, without a span of its own.
     *
     * @param prompt the prompt, sent as the user's question, must not be {@code null}
     * @param jobId the job that asks, sent as {@code X-Request-ID} for the server's logs
     * @return the answer's items in order: the text so far as it grows ({@link AskedText#partial}; {@code openai} and
     *         {@code responses}: one item per chunk of text) or what the server says it does
     *         ({@link AskedText#activity}; {@code research}: its progress lines), then the whole answer, as
     *         {@link #text} gives it, last; fails as {@link #text} fails. This default gives the whole answer only
     */
    default Multi<AskedText> draft(String prompt, String jobId) {
        return text(prompt, jobId).toMulti();
    }

    /**
     * Asks one prompt and gives its whole answer as text, published nowhere, in a span of its own ({@link #span}, ended
     * with the answer, with its tokens and their cost when the server reported them, as an answer's span): a step of a
     * job whose output is not that text (a deep research job's plan).
     *
     * @param prompt the prompt, sent as the user's question, must not be {@code null}
     * @param jobId the job that asks, sent as {@code X-Request-ID} for the server's logs
     * @param trace the asking attempt's context ({@code JobContext.traceContext()}), must not be {@code null}: the
     *        call's span is its child
     * @return the answer's text and tokens, as {@link #text} says; fails as it fails
     * @throws LlmException as {@link #span} throws
     */
    default Uni<AskedText> ask(String prompt, String jobId, Context trace) {
        return ask(prompt, jobId, trace, draft -> Uni.createFrom().voidItem());
    }

    /**
     * Asks one prompt as {@link #ask(String, String, Context)} does, and hands the answer to {@code onDraft} as it is
     * written ({@link #draft}), one item after the other: the next item waits until {@code onDraft}'s {@code Uni}
     * completed, and the whole answer is given only once every item was handled (a deep research job publishes its
     * plan's sub-questions as they are written, then the plan).
     *
     * @param prompt the prompt, sent as the user's question, must not be {@code null}
     * @param jobId the job that asks, sent as {@code X-Request-ID} for the server's logs
     * @param trace the asking attempt's context, must not be {@code null}: the call's span is its child
     * @param onDraft called with each item of the draft, the whole answer last, must not be {@code null}; a failure of
     *        its {@code Uni} (or an exception it throws) fails the call and closes the LLM's stream
     * @return the whole answer, as {@link #text} says; fails as it fails, or as {@code onDraft} fails
     * @throws LlmException as {@link #span} throws
     */
    default Uni<AskedText> ask(String prompt, String jobId, Context trace, Function<AskedText, Uni<Void>> onDraft) {
        LlmSpan span = span(trace);
        Uni<AskedText> whole = draft(prompt, jobId).onItem().call(draft -> onDraft.apply(draft))
                .select().where(AskedText::whole).collect().last()
                .onItem().ifNull().failWith(() -> new LlmException("the LLM's stream ended without an answer"));
        return span.around(whole.invoke(asked -> {
            ChatChunk.Usage usage = asked.usage();
            if (usage != null) {
                span.end(usage.promptTokens(), usage.completionTokens(), costMicros(usage), null, null);
            }
        }), true);
    }

    /**
     * @return whether this protocol's calls report the tokens they spend ({@code openai} and {@code responses}: the
     *         server's {@code usage}), so that research jobs cost their tenants tokens under fair dispatch; the
     *         {@code research} protocol reports none, and its jobs cost the time they hold a worker slot
     */
    default boolean countsTokens() {
        return true;
    }

    /**
     * What a call's tokens cost at the model's prices, for its span ({@code fq.llm.cost}).
     *
     * @param usage the tokens the call spent, must not be {@code null}
     * @return in micro-units of the prices' currency ({@link dev.fencedqueue.llm.LlmPrices#micros}); empty without
     *         prices, and in a protocol that counts no tokens (the default)
     */
    default OptionalLong costMicros(ChatChunk.Usage usage) {
        return OptionalLong.empty();
    }
}
