package dev.fencedqueue.tracing;

import java.util.function.BiConsumer;

import dev.fencedqueue.Failures;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.semconv.ErrorAttributes;
import io.smallrye.mutiny.Uni;

/** Ends spans with the {@code Uni} they time. */
public final class Spans {

    private Spans() {
    }

    /**
     * Ends {@code span} when {@code work} ends: after {@code onItem} on its item, in error on its failure (status
     * {@code ERROR} with the failure's message, {@code error.type} its class), and on its cancellation (with
     * {@code error.type} {@code cancelled}).
     *
     * @param span the span, started, must not be {@code null}
     * @param work what it times, must not be {@code null}
     * @param onItem adds what the item tells to the span before it ends, must not be {@code null}; what it throws
     *        fails the returned {@code Uni} (the span is ended all the same)
     * @return {@code work}, ending the span; {@code work} itself when the span records nothing (tracing is off, or the
     *         trace is not sampled), so that an untraced call costs no more operators
     */
    public static <T> Uni<T> ending(Span span, Uni<T> work, BiConsumer<Span, T> onItem) {
        if (!span.isRecording()) {
            return work;
        }
        return work.onItemOrFailure().invoke((item, failure) -> {
            try {
                if (failure == null) {
                    onItem.accept(span, item);
                } else {
                    failed(span, failure);
                }
            } finally {
                span.end();
            }
        }).onCancellation().invoke(() -> {
            span.setAttribute(ErrorAttributes.ERROR_TYPE, "cancelled");
            span.end();
        });
    }

    /**
     * Marks a span as failed: status {@code ERROR} with the failure's message (its class name when it has none),
     * {@code error.type} its class name.
     *
     * @param span the span, must not be {@code null}
     * @param failure why, must not be {@code null}
     */
    public static void failed(Span span, Throwable failure) {
        span.setStatus(StatusCode.ERROR, Failures.describe(failure));
        span.setAttribute(ErrorAttributes.ERROR_TYPE, failure.getClass().getName());
    }
}
