package dev.fencedqueue.research;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.events.AnswerDelta;
import dev.fencedqueue.llm.ChatChunk;
import dev.fencedqueue.llm.ChatCompletionsClient;
import dev.fencedqueue.llm.LlmException;
import dev.fencedqueue.llm.LlmPrices;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.JobContext;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;

/**
 * A research job in the {@code openai} protocol: asks an OpenAI-compatible server ({@link ChatContinuation}) and
 * publishes the streamed text in batches ({@code fq.llm.stream.delta-interval}, {@code fq.llm.stream.delta-chars}) as fenced
 * {@code progress} events carrying {@code delta} (and {@code reasoningDelta}), the answer's running
 * {@code completionTokens}, {@code phase: "writing"} and, with {@code fq.llm.request.max-tokens}, {@code maxTokens} (the
 * {@code percent} counts the tokens against it); the result is {@link ChatAnswer#result}. A run that took the job
 * over and continues the committed answer first announces it ({@link JobContext#resume()}) and then publishes only
 * what follows it. A stream that ends without a finish reason (nor at {@code fq.llm.stream.max-chars}) fails the
 * attempt. When the worker cancels the job (its token went stale, it was aborted, the instance stops), the LLM
 * stream is cancelled and its HTTP connection closed.
 *
 * <p>The {@code openai} protocol's {@link AnswerProtocol}: a whole answer is the streamed content; a call's span is
 * {@code chat <model>}, provider {@code openai}. A bean of its own type only: the {@code AnswerProtocol} bean is the
 * one {@link AnswerProtocols} chooses.
 */
@ApplicationScoped
@Typed(ChatResearch.class)
public class ChatResearch implements AnswerProtocol {

    private final ChatContinuation continuation;
    private final ChatCompletionsClient chat;
    private final LlmConfig config;
    private final ObjectMapper json;
    private final LlmTokens tokens;
    private final String queue;
    private final JobTracing tracing;
    private final LlmPrices prices;

    public ChatResearch(ChatContinuation continuation, ChatCompletionsClient chat, LlmConfig config, ObjectMapper json,
            LlmTokens tokens, ResearchConfig research, JobTracing tracing, LlmPrices prices) {
        this.tracing = tracing;
        this.prices = prices;
        this.queue = research.queue();
        this.continuation = continuation;
        this.chat = chat;
        this.config = config;
        this.json = json;
        this.tokens = tokens;
    }

    /**
     * @param context the attempt, must not be {@code null}
     * @param query the job's question, must not be {@code null}
     * @return the job's result; fails as the LLM call or a fenced write fails
     */
    public Uni<Object> answer(JobContext context, String query) {
        return answer(context, query, context.resumePoint().isPresent());
    }

    /**
     * @param context the attempt, must not be {@code null}
     * @param query the question, must not be {@code null}
     * @param mayContinue whether the run may continue the answer earlier runs committed (it took the job over); with
     *        {@code false} the answer starts afresh, as a first run's
     * @return the job's result; fails as the LLM call or a fenced write fails
     */
    @Override
    public Uni<Object> answer(JobContext context, String query, boolean mayContinue) {
        boolean takeover = mayContinue && context.resumePoint().isPresent();
        Uni<CommittedAnswer> committed = takeover && config.resume().mode() != LlmConfig.ResumeMode.RESTART
                ? context.committedEvents().map(events -> CommittedAnswer.of(events, json))
                : Uni.createFrom().item(CommittedAnswer.NONE);
        LlmSpan span = span(context.traceContext());
        return span.around(committed.chain(base -> continuation.open(query, context.jobId(), takeover, base))
                .chain(opened -> stream(context, opened, span)), false);
    }

    @Override
    public LlmSpan span(Context trace) {
        return LlmSpan.start(tracing, trace, "chat", "openai", chat.model(), chat.url());
    }

    @Override
    public OptionalLong costMicros(ChatChunk.Usage usage) {
        return prices.micros(usage.promptTokens(), usage.completionTokens());
    }

    @Override
    public Uni<AskedText> text(String prompt, String jobId) {
        return text(chat.stream(prompt, jobId));
    }

    @Override
    public Multi<AskedText> draft(String prompt, String jobId) {
        return draft(chat.stream(prompt, jobId));
    }

    /**
     * @param chunks an answer's chunks, must not be {@code null}
     * @return their content, concatenated, and the usage of the last chunk that had one (without any: no prompt
     *         tokens and one completion token per chunk of text, as an answer counts them), once they completed; fails
     *         as they fail
     */
    static Uni<AskedText> text(Multi<ChatChunk> chunks) {
        return chunks.collect().in(Asked::new, Asked::add).map(Asked::result);
    }

    /**
     * @param chunks an answer's chunks, subscribed once per subscription of the result, must not be {@code null}
     * @return the text so far after each chunk that adds text ({@link AskedText#partial}), then the whole answer as
     *         {@link #text(Multi)} gives it; fails as they fail
     */
    static Multi<AskedText> draft(Multi<ChatChunk> chunks) {
        return Multi.createFrom().deferred(() -> {
            Asked asked = new Asked();
            Multi<AskedText> partial = chunks.onItem().transformToIterable(chunk -> asked.add(chunk)
                    ? List.of(AskedText.partial(asked.text.toString())) : List.<AskedText>of());
            return Multi.createBy().concatenating().streams(partial, Multi.createFrom().item(asked::result));
        });
    }

    /** An asked answer as its chunks arrive: the text so far, its chunks of text, and the last usage reported. */
    private static final class Asked {
        private final StringBuilder text = new StringBuilder();
        private long chunks;
        private ChatChunk.Usage usage;

        /** @return whether the chunk added text */
        boolean add(ChatChunk chunk) {
            boolean more = chunk.content() != null && !chunk.content().isEmpty();
            if (more) {
                text.append(chunk.content());
                chunks++;
            }
            if (chunk.usage() != null) {
                usage = chunk.usage();
            }
            return more;
        }

        AskedText result() {
            return new AskedText(text.toString(), usage != null ? usage : new ChatChunk.Usage(0, chunks, chunks));
        }
    }

    /**
     * Streams an opened answer into fenced events (announcing {@code resume} first when it continues committed text)
     * and counts its tokens.
     *
     * @param context the attempt
     * @param opened the stream, subscribed once
     * @param span the call's span, ended here with the attempt's tokens
     * @return the job's result
     */
    Uni<Object> stream(JobContext context, ChatContinuation.Opened opened, LlmSpan span) {
        span.takeover(opened.takeover() == null ? null : opened.takeover().value(), context.traceContext());
        Uni<Void> announced = opened.continues() ? context.resume().replaceWithVoid() : Uni.createFrom().voidItem();
        return announced.chain(() -> publishAll(context, opened, span));
    }

    private Uni<Object> publishAll(JobContext context, ChatContinuation.Opened opened, LlmSpan span) {
        span.streaming(); // built right before its subscription: from here account() ends the span
        ChatAnswer answer = new ChatAnswer(opened.base(), opened.takeover() == Takeover.REATTACH,
                config.stream().maxChars(), config.stream().deltaChars(), config.stream().deltaInterval().toNanos(), System.nanoTime());
        return opened.chunks()
                .select().first(answer::add) // the size cap: reads no more, which closes the upstream connection
                .onItem().transformToUniAndConcatenate(chunk -> {
                    if (chunk.activity() != null) {
                        Uni<String> flushed = answer.pending() ? publish(context, answer, opened)
                                : Uni.createFrom().nullItem();
                        return flushed.chain(() -> activity(context, answer, chunk, opened));
                    }
                    return answer.due(System.nanoTime()) ? publish(context, answer, opened) : Uni.createFrom().nullItem();
                })
                .collect().last()
                // Never completed without a finish reason: an answer that just stopped (even an empty one) is cut short.
                .chain(() -> answer.ended() ? Uni.createFrom().voidItem() : Uni.createFrom().failure(new LlmException(
                        "the LLM server's stream ended without a finish reason: the answer is incomplete")))
                .chain(() -> answer.pending() ? publish(context, answer, opened) : Uni.createFrom().nullItem())
                .map(ignored -> (Object) answer.result(chat.model()))
                .call(() -> account(context, answer, opened, span, null))
                .onFailure().call(failure -> account(context, answer, opened, span, failure))
                // Cancelled by the worker (its reason says how the attempt ended) or by a caller that then fails it.
                .onCancellation().invoke(() -> account(context, answer, opened, span,
                        new CancellationException("the attempt's pipeline was cancelled")));
    }

    /**
     * Counts the attempt's tokens by how it ended, once (a zombie's rejected write both fails its pipeline and gets
     * it cancelled); never fails.
     */
    private Uni<Void> account(JobContext context, ChatAnswer answer, ChatContinuation.Opened opened, LlmSpan span,
            Throwable failure) {
        if (!answer.claimAccounting()) {
            return Uni.createFrom().voidItem();
        }
        ChatChunk.Usage usage = answer.usage();
        String outcome = LlmTokens.outcome(context.cancelReason(), failure);
        LlmTokens.Attempt attempt = new LlmTokens.Attempt(outcome, usage == null ? 0 : usage.promptTokens(),
                answer.ownCompletionTokens(), "result".equals(outcome) ? 0 : answer.uncommittedTokens(),
                opened.base().completionTokens(), opened.takeover());
        span.end(attempt.promptTokens(), attempt.completionTokens(),
                prices.micros(attempt.promptTokens(), attempt.completionTokens()), answer.finishReason(),
                "failed".equals(outcome) ? failure : null);
        // Started here and memoized: cancelling the attempt's pipeline (as the worker does to a zombie) must not
        // cancel the count on its way.
        Uni<Void> recording = tokens.record(queue, context.jobId(), context.fencingToken(), attempt).memoize().indefinitely();
        recording.subscribe().with(ignored -> {
        });
        return recording;
    }

    private Uni<String> publish(JobContext context, ChatAnswer answer, ChatContinuation.Opened opened) {
        String[] batch = answer.drain(System.nanoTime());
        long total = answer.completionTokens();
        long own = answer.ownCompletionTokens();
        ObjectNode details = writing(json.createObjectNode().put("delta", batch[0]).put("completionTokens", total));
        if (!batch[1].isEmpty()) {
            details.put("reasoningDelta", batch[1]);
        }
        long sequence = answer.lastSequence();
        if (sequence >= 0) {
            details.put("sequenceNumber", sequence);
        }
        String message = AnswerDelta.message(total);
        Uni<String> write = opened.checkpoint() != null && sequence >= 0
                ? context.progress(percent(total), message, details, opened.checkpoint().apply(sequence))
                : context.progress(percent(total), message, details);
        context.reportTokens(own);
        return write.invoke(() -> answer.committed(own));
    }

    /**
     * @param details a progress event's details
     * @return them, with {@code phase: "writing"} (the page's one live line of the answer) and, when
     *         {@code fq.llm.request.max-tokens} is set, {@code maxTokens} (what {@code percent} counts against)
     */
    private ObjectNode writing(ObjectNode details) {
        details.put("phase", "writing");
        config.request().maxTokens().ifPresent(max -> details.put("maxTokens", max));
        return details;
    }

    /** Publishes what the model does besides writing (a web search), with its upstream sequence number. */
    private Uni<String> activity(JobContext context, ChatAnswer answer, ChatChunk chunk, ChatContinuation.Opened opened) {
        long total = answer.completionTokens();
        ObjectNode details = json.createObjectNode().put("completionTokens", total);
        if (chunk.sequence() < 0 || opened.checkpoint() == null) {
            return context.progress(percent(total), chunk.activity(), details);
        }
        details.put("sequenceNumber", chunk.sequence());
        return context.progress(percent(total), chunk.activity(), details, opened.checkpoint().apply(chunk.sequence()));
    }

    /** @return the tokens written as a share of {@code fq.llm.request.max-tokens}, 0 to 99 (the end says 100); 0 without it */
    private int percent(long tokens) {
        return AnswerDelta.percent(tokens, config.request().maxTokens().map(Integer::longValue).orElse(null));
    }
}
