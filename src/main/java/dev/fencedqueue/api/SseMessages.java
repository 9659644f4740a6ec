package dev.fencedqueue.api;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.fencedqueue.events.StreamMessage;
import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;

/**
 * Turns a job stream's messages into SSE events: {@code id:} (the Redis stream entry id) on every event but a
 * {@code reset}, {@code event:} and {@code data:}, and {@code retry:} (the client's reconnection time) on the first
 * message of a response.
 */
final class SseMessages {

    private SseMessages() {
    }

    /**
     * @param sse the JAX-RS SSE factory
     * @param messages one response's messages
     * @param retry the reconnection time sent with the first message
     * @return the SSE events
     */
    static Multi<OutboundSseEvent> toSse(Sse sse, Multi<StreamMessage> messages, Duration retry) {
        return Multi.createFrom().deferred(() -> {
            AtomicBoolean first = new AtomicBoolean(true);
            return messages.map(message -> first.getAndSet(false) ? withRetry(sse, message, retry) : toSse(sse, message));
        });
    }

    private static OutboundSseEvent withRetry(Sse sse, StreamMessage message, Duration retry) {
        OutboundSseEvent.Builder builder = message.isKeepAlive() ? sse.newEventBuilder().comment(message.comment())
                : sse.newEventBuilder().name(message.event()).data(message.data());
        if (!message.isKeepAlive() && message.id() != null) {
            builder.id(message.id());
        }
        return builder.reconnectDelay(retry.toMillis()).build();
    }

    /**
     * @param sse the JAX-RS SSE factory, must not be {@code null}
     * @param message an event or a keep-alive, must not be {@code null}
     * @return the SSE event: a comment for a keep-alive
     */
    static OutboundSseEvent toSse(Sse sse, StreamMessage message) {
        if (message.isKeepAlive()) {
            return sse.newEventBuilder().comment(message.comment()).build();
        }
        OutboundSseEvent.Builder builder = sse.newEventBuilder().name(message.event()).data(message.data());
        if (message.id() != null) {
            builder.id(message.id());
        }
        return builder.build();
    }
}
