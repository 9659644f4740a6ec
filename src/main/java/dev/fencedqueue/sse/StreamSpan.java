package dev.fencedqueue.sse;

import dev.fencedqueue.tracing.TraceAttributes;
import io.opentelemetry.api.trace.Span;

/**
 * The span of one SSE reader of a job ({@code receive <queue>}, in the job's trace): the events its stream sent, and
 * how many of them were {@code reset} and {@code resume} (a newer run took the job over), set when the stream ends.
 * Confined to the subscriber's event loop.
 */
final class StreamSpan {

    /** The span of a stream that is not traced. */
    static final StreamSpan NONE = new StreamSpan(Span.getInvalid());

    private final Span span;
    private long events;
    private long resets;
    private long resumes;
    private boolean ended;

    /** @param span the reader's span, started (a {@code JobTracing.receive}) */
    StreamSpan(Span span) {
        this.span = span;
    }

    /** @param type the type of an event the stream sent ({@code progress}, {@code resume}, ...) */
    void sent(String type) {
        events++;
        if ("resume".equals(type)) {
            resumes++;
        }
    }

    /** Counts a {@code reset} the stream sent. */
    void reset() {
        events++;
        resets++;
    }

    /** @param resumeAfter the {@code Last-Event-ID} the reader resumed after, or {@code null} */
    void resumedAfter(String resumeAfter) {
        if (resumeAfter != null) {
            span.setAttribute(TraceAttributes.SSE_LAST_EVENT_ID, resumeAfter);
        }
    }

    /** Ends the span with what the stream sent, once. */
    void end() {
        if (ended) {
            return;
        }
        ended = true;
        span.setAttribute(TraceAttributes.SSE_EVENTS, events);
        span.setAttribute(TraceAttributes.SSE_RESETS, resets);
        span.setAttribute(TraceAttributes.SSE_RESUMES, resumes);
        span.end();
    }
}
