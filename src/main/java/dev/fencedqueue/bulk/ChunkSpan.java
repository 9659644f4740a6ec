package dev.fencedqueue.bulk;

import java.util.Locale;

import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.Spans;
import dev.fencedqueue.tracing.TraceAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.semconv.ErrorAttributes;

/**
 * The span of one chunk of a chunked job ({@code chunk <queue>}, kind {@code INTERNAL}), a child of its attempt's span:
 * the cursor range ({@link TraceAttributes#CURSOR_FROM}, {@link TraceAttributes#CURSOR_TO}), the items and rows it
 * wrote, and how it ended ({@code committed}, {@code done}, {@code fenced}: a newer epoch owns the job and nothing was
 * written, {@code stopped}: an operator's abort at its boundary). Also times the chunk's sink transaction for
 * {@code fq_bulk_chunk_duration_seconds}.
 */
final class ChunkSpan {

    private final Span span;
    private final long startedAt = System.nanoTime();

    private ChunkSpan(Span span) {
        this.span = span;
    }

    /**
     * @param tracing the spans of jobs
     * @param queue the job's queue
     * @param attempt the attempt's context ({@code JobContext.traceContext()})
     * @param from the cursor before the chunk
     * @return the chunk's span, started
     */
    static ChunkSpan start(JobTracing tracing, String queue, Context attempt, Cursor from) {
        return new ChunkSpan(tracing.span("chunk " + queue, SpanKind.INTERNAL, attempt)
                .setAttribute(TraceAttributes.CURSOR_FROM, from.position()).startSpan());
    }

    /** @return how long the chunk has taken since its start, ns */
    long elapsedNanos() {
        return System.nanoTime() - startedAt;
    }

    /** Ends the span with what the sink did. */
    void ended(ChunkOutcome<?> outcome) {
        span.setAttribute(TraceAttributes.CHUNK_OUTCOME, outcome.status().name().toLowerCase(Locale.ROOT));
        span.setAttribute(TraceAttributes.CHUNK_ITEMS, (long) outcome.items().size());
        span.setAttribute(TraceAttributes.CHUNK_ROWS, outcome.rows());
        if (outcome.to() != null) {
            span.setAttribute(TraceAttributes.CURSOR_TO, outcome.to());
        }
        if (outcome.status() == ChunkOutcome.Status.FENCED) {
            span.addEvent(TraceAttributes.WRITE_REFUSED);
        }
        span.end();
    }

    /** Ends the span of a chunk whose sink failed (rolled back). */
    void failed(Throwable failure) {
        Spans.failed(span, failure);
        span.end();
    }

    /** Ends the span of a chunk its attempt's cancellation stopped (rolled back). */
    void cancelled() {
        span.setAttribute(ErrorAttributes.ERROR_TYPE, "cancelled");
        span.end();
    }
}
