package dev.fencedqueue.tracing;

import java.util.List;
import java.util.Map;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The spans of jobs (OpenTelemetry tracing): one trace per job. The span that adds a job ({@link #send}) is stored
 * with the job as a W3C {@code traceparent} (W3C Trace Context, level 1), and every span about the job afterwards, on
 * any instance (each attempt, its LLM calls and chunks, each SSE reader), is a descendant of it. Attributes follow the
 * OpenTelemetry semantic conventions for messaging ({@code messaging.system} {@value #SYSTEM},
 * {@code messaging.operation.type} {@code send} | {@code process}, {@code messaging.destination.name} the queue,
 * {@code messaging.message.id} the job id); what the conventions do not name is under {@code fq.}
 * ({@link TraceAttributes}). With the SDK off ({@code quarkus.otel.sdk.disabled=true}, the default) every span is a
 * no-op (Quarkus still hands out an SDK then, one that records spans and exports them nowhere; this class does not use
 * it) and costs next to nothing, and no trace context is stored with jobs.
 */
@ApplicationScoped
public class JobTracing {

    /** {@code messaging.system} of every span of the queue. */
    public static final String SYSTEM = "fenced-queue";

    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final TextMapGetter<String> TRACEPARENT = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of("traceparent");
        }

        @Override
        public String get(String carrier, String key) {
            return "traceparent".equals(key) ? carrier : null;
        }
    };

    private final Tracer tracer;
    private final boolean enabled;

    /**
     * @param openTelemetry Quarkus's OpenTelemetry, must not be {@code null}
     * @param sdkDisabled {@code quarkus.otel.sdk.disabled}: {@code true} makes every span a no-op
     */
    @Inject
    public JobTracing(OpenTelemetry openTelemetry,
            @ConfigProperty(name = "quarkus.otel.sdk.disabled", defaultValue = "false") boolean sdkDisabled) {
        this.enabled = !sdkDisabled;
        this.tracer = (sdkDisabled ? OpenTelemetry.noop() : openTelemetry).getTracer("dev.fencedqueue");
    }

    /** @return spans that record nothing, for code built outside CDI (benchmarks, tools) */
    public static JobTracing noop() {
        return new JobTracing(OpenTelemetry.noop(), true);
    }

    /** @return whether spans are recorded ({@code quarkus.otel.sdk.disabled=false}) */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Starts the span of adding jobs to a queue ({@code send <queue>}, kind {@code PRODUCER}); the caller ends it.
     *
     * @param queue the queue, must not be {@code null}
     * @param parent the context it continues, must not be {@code null}: the request's ({@link Context#current()} in a
     *        REST resource), an attempt's (a running job adding children), or {@link Context#root()} for a new trace (a
     *        scheduler's tick)
     * @param jobs how many jobs one add writes (more than one: {@code messaging.batch.message_count}; the caller then
     *        sets no {@code messaging.message.id})
     * @return the span, started; an invalid span (records nothing, stores no trace context) while tracing is off
     */
    public Span send(String queue, Context parent, int jobs) {
        if (!enabled) {
            return Span.getInvalid();
        }
        SpanBuilder span = messaging("send " + queue, SpanKind.PRODUCER, parent, queue, "send");
        if (jobs > 1) {
            span.setAttribute(MessagingIncubatingAttributes.MESSAGING_BATCH_MESSAGE_COUNT, (long) jobs);
        }
        return span.startSpan();
    }

    /**
     * The span of one attempt of a job ({@code process <queue>}, kind {@code CONSUMER}), not started yet.
     *
     * @param queue the queue, must not be {@code null}
     * @param jobId the job, must not be {@code null}
     * @param traceParent the job's stored {@code traceparent}, or {@code null}/{@code ""} when it has none (the attempt
     *        then starts a trace of its own)
     * @return a builder of the span with its messaging attributes, to add the attempt's own, start, and end
     */
    public SpanBuilder process(String queue, String jobId, String traceParent) {
        return messaging("process " + queue, SpanKind.CONSUMER, parent(traceParent), queue, "process")
                .setAttribute(MessagingIncubatingAttributes.MESSAGING_MESSAGE_ID, jobId);
    }

    /**
     * Starts the span of a reader following a job's events ({@code receive <queue>}, kind {@code CLIENT}, as the
     * messaging conventions have a receive): in the
     * job's trace, so that the trace runs from the request that added the job to the last SSE event sent; linked to
     * the reader's own request span.
     *
     * @param queue the queue, must not be {@code null}
     * @param jobId the job, must not be {@code null}
     * @param traceParent the job's stored {@code traceparent}, or {@code null}/{@code ""} when it has none
     * @param request the span of the reader's HTTP request (its trace is the reader's), or an invalid span for none
     * @return the span, started; the caller ends it
     */
    public Span receive(String queue, String jobId, String traceParent, Span request) {
        if (!enabled) {
            return Span.getInvalid();
        }
        SpanBuilder span = messaging("receive " + queue, SpanKind.CLIENT, parent(traceParent), queue, "receive")
                .setAttribute(MessagingIncubatingAttributes.MESSAGING_MESSAGE_ID, jobId);
        if (request.getSpanContext().isValid()) {
            span.addLink(request.getSpanContext());
        }
        return span.startSpan();
    }

    /**
     * @param name the span's name, low in cardinality (no job id in it)
     * @param kind its kind
     * @param parent its parent context, must not be {@code null}
     * @return a builder of a span of this service's tracer
     */
    public SpanBuilder span(String name, SpanKind kind, Context parent) {
        return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent);
    }

    /**
     * @param span a span, must not be {@code null}
     * @return its W3C {@code traceparent} ({@code 00-<trace id>-<span id>-<flags>}) to store with a job, or {@code ""}
     *         when it is not a real span (the SDK is off)
     */
    public static String traceParent(Span span) {
        SpanContext context = span.getSpanContext();
        if (!context.isValid()) {
            return "";
        }
        StringBuilder header = new StringBuilder(55);
        W3C.inject(Context.root().with(span), header, (carrier, key, value) -> {
            if ("traceparent".equals(key)) {
                carrier.append(value);
            }
        });
        return header.toString();
    }

    /**
     * @param span a span, must not be {@code null}
     * @param headers where to put its {@code traceparent} (and {@code tracestate}) for an outgoing HTTP request;
     *        nothing is put when it is not a real span
     */
    public static void inject(Span span, Map<String, String> headers) {
        if (span.getSpanContext().isValid()) {
            W3C.inject(Context.root().with(span), headers, Map::put);
        }
    }

    /**
     * @param traceParent a stored W3C {@code traceparent}, or {@code null}/{@code ""} for none
     * @return the context it names, as a remote parent; {@link Context#root()} when there is none or it is malformed
     */
    public static Context parent(String traceParent) {
        if (traceParent == null || traceParent.isEmpty()) {
            return Context.root();
        }
        return W3C.extract(Context.root(), traceParent, TRACEPARENT);
    }

    /**
     * @param traceParent a stored W3C {@code traceparent}, or {@code null}
     * @return its trace id (32 lowercase hex digits), or {@code null} when there is none or it is malformed
     */
    public static String traceId(String traceParent) {
        SpanContext context = Span.fromContext(parent(traceParent)).getSpanContext();
        return context.isValid() ? context.getTraceId() : null;
    }

    private SpanBuilder messaging(String name, SpanKind kind, Context parent, String queue, String operation) {
        return span(name, kind, parent)
                .setAttribute(MessagingIncubatingAttributes.MESSAGING_SYSTEM, SYSTEM)
                .setAttribute(MessagingIncubatingAttributes.MESSAGING_OPERATION_TYPE, operation)
                .setAttribute(MessagingIncubatingAttributes.MESSAGING_OPERATION_NAME, operation)
                .setAttribute(MessagingIncubatingAttributes.MESSAGING_DESTINATION_NAME, queue);
    }
}
