package dev.fencedqueue.llm;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.Spans;
import dev.fencedqueue.tracing.TraceAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.semconv.ServerAttributes;
import io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes;
import io.smallrye.mutiny.Uni;

/**
 * The span of one LLM call of an attempt (OpenTelemetry's GenAI semantic conventions): {@code <operation> <model>},
 * kind {@code CLIENT}, a child of the attempt's span, with {@code gen_ai.operation.name}, {@code gen_ai.request.model},
 * {@code server.address} and {@code server.port}, and at its end {@code gen_ai.usage.input_tokens},
 * {@code gen_ai.usage.output_tokens} (the tokens the job's status counts for the attempt), with the model's prices
 * what they cost ({@link TraceAttributes#LLM_COST}, {@code fq.llm.cost}: the conventions name no cost) and
 * {@code gen_ai.response.finish_reasons}. The prompt and the answer are never put in it (they can be large and
 * private). Its W3C {@code traceparent} goes with every HTTP request of the call ({@link #inject}), so that an
 * instrumented LLM server's spans join the job's trace. Ends once, from any thread.
 */
public final class LlmSpan {

    /** The key under which a call's span travels in the Mutiny subscriber context to the HTTP requests it makes. */
    static final String CONTEXT_KEY = "fq.llm.span";

    private final Span span;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile boolean streaming;

    private LlmSpan(Span span) {
        this.span = span;
    }

    /**
     * Starts the span of an LLM call.
     *
     * @param tracing the spans of jobs, must not be {@code null}
     * @param parent the attempt's context ({@code JobContext.traceContext()}), must not be {@code null}
     * @param operation {@code chat} (Chat Completions, Responses) or {@code invoke_agent} (the research protocol), must
     *        not be {@code null}
     * @param provider {@code gen_ai.provider.name}: {@code openai} for OpenAI's APIs (and servers that speak them), or
     *        {@code null} for the research protocol, which names none
     * @param model the requested model, or {@code null} when the protocol names none
     * @param server the LLM endpoint, must not be {@code null}
     * @return the span, started (a no-op one while tracing is off)
     */
    public static LlmSpan start(JobTracing tracing, Context parent, String operation, String provider, String model,
            URI server) {
        SpanBuilder builder = tracing.span(model == null ? operation : operation + " " + model, SpanKind.CLIENT, parent)
                .setAttribute(GenAiIncubatingAttributes.GEN_AI_OPERATION_NAME, operation)
                .setAttribute(ServerAttributes.SERVER_ADDRESS, server.getHost());
        if (provider != null) {
            builder.setAttribute(GenAiIncubatingAttributes.GEN_AI_PROVIDER_NAME, provider);
        }
        if (model != null) {
            builder.setAttribute(GenAiIncubatingAttributes.GEN_AI_REQUEST_MODEL, model);
        }
        int port = server.getPort() > 0 ? server.getPort() : "https".equals(server.getScheme()) ? 443 : 80;
        builder.setAttribute(ServerAttributes.SERVER_PORT, (long) port);
        return new LlmSpan(builder.startSpan());
    }

    /**
     * Marks the call as streaming its answer into the job: from now on the stream's end (its item, failure or
     * cancellation) ends the span with the attempt's tokens ({@link #end}), not {@link #around}. Call it when the stream
     * is subscribed, never before: a cancellation in between would end the span nowhere.
     */
    public void streaming() {
        streaming = true;
    }

    /**
     * Records how an attempt that took the job over went on, on the call's span and on the attempt's.
     *
     * @param takeover how: {@code reattach}, {@code continue} or {@code restart} (the research job's {@code Takeover}),
     *        or {@code null} on the job's first run
     * @param attempt the attempt's context, must not be {@code null}
     */
    public void takeover(String takeover, Context attempt) {
        if (takeover != null) {
            span.setAttribute(TraceAttributes.TAKEOVER, takeover);
            Span.fromContext(attempt).setAttribute(TraceAttributes.TAKEOVER, takeover);
        }
    }

    /**
     * Ends the span with what the call spent, once; later ends do nothing.
     *
     * @param inputTokens prompt tokens, 0 when unknown
     * @param outputTokens completion tokens this attempt generated, 0 or more
     * @param costMicros what those tokens cost ({@link LlmPrices#micros}), in micro-units; empty without prices; must
     *        not be {@code null}
     * @param finishReason why the answer ended ({@code stop}, {@code length}, ...), or {@code null}
     * @param failure what failed the call, or {@code null}
     */
    public void end(long inputTokens, long outputTokens, OptionalLong costMicros, String finishReason,
            Throwable failure) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        span.setAttribute(GenAiIncubatingAttributes.GEN_AI_USAGE_INPUT_TOKENS, inputTokens);
        span.setAttribute(GenAiIncubatingAttributes.GEN_AI_USAGE_OUTPUT_TOKENS, outputTokens);
        if (costMicros.isPresent()) {
            span.setAttribute(TraceAttributes.LLM_COST, LlmPrices.units(costMicros.getAsLong()));
        }
        finish(finishReason, failure);
    }

    /** Ends the span without token counts (the protocol has none, or the call ended before its stream), once. */
    private void endUnmetered(Throwable failure) {
        if (ended.compareAndSet(false, true)) {
            finish(null, failure);
        }
    }

    private void finish(String finishReason, Throwable failure) {
        if (finishReason != null) {
            span.setAttribute(GenAiIncubatingAttributes.GEN_AI_RESPONSE_FINISH_REASONS, List.of(finishReason));
        }
        if (failure != null) {
            Spans.failed(span, failure);
        }
        span.end();
    }

    /**
     * Runs a call under this span: its HTTP requests carry the span's {@code traceparent}, and the span ends when the
     * call fails or is cancelled (if nothing ended it before, with its tokens) and, unless {@code endsOnItem} is
     * {@code false}, when it emits.
     *
     * @param call the call, must not be {@code null}
     * @param endsOnItem whether the call's item ends the span (else the caller ends it, with the tokens)
     * @return the call, as it emits or fails
     */
    public <T> Uni<T> around(Uni<T> call, boolean endsOnItem) {
        return Uni.createFrom().context(context -> {
            // The subscriber context is the attempt's, shared by its calls (one after the other): this call's span is
            // in it while the call runs, and the one before (or none) again after.
            LlmSpan before = context.getOrElse(CONTEXT_KEY, () -> null);
            context.put(CONTEXT_KEY, this);
            return call.onTermination().invoke(() -> {
                if (before == null) {
                    context.delete(CONTEXT_KEY);
                } else {
                    context.put(CONTEXT_KEY, before);
                }
            });
        }).onItemOrFailure().invoke((item, failure) -> {
            if (failure != null || endsOnItem) {
                endUnmetered(failure);
            }
        }).onCancellation().invoke(() -> {
            // Cancellation runs from the outside in: a stream still to see it counts the tokens and ends the span.
            if (!streaming) {
                endUnmetered(null);
            }
        });
    }

    /**
     * Puts the {@code traceparent} of the LLM call whose request this is into the request's headers.
     *
     * @param context the Mutiny subscriber context of the request, must not be {@code null}
     * @param headers the request's headers; a copy with the trace headers is returned when a call's span is in the
     *        context
     * @return the headers to send
     */
    static Map<String, String> inject(io.smallrye.mutiny.Context context, Map<String, String> headers) {
        LlmSpan call = context.getOrElse(CONTEXT_KEY, () -> null);
        if (call == null || !call.span.getSpanContext().isValid()) {
            return headers;
        }
        Map<String, String> traced = new HashMap<>(headers);
        JobTracing.inject(call.span, traced);
        return traced;
    }
}
