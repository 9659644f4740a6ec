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
            return messages.map(message -> {
                OutboundSseEvent.Builder builder = builder(sse, message);
                if (first.getAndSet(false)) {
                    builder.reconnectDelay(retry.toMillis());
                }
                return builder.build();
            });
        });
    }

    /** @return the SSE event of a message: a comment for a keep-alive */
    private static OutboundSseEvent.Builder builder(Sse sse, StreamMessage message) {
        if (message.isKeepAlive()) {
            return sse.newEventBuilder().comment(message.comment());
        }
        OutboundSseEvent.Builder builder = sse.newEventBuilder().name(message.event()).data(message.data());
        if (message.id() != null) {
            builder.id(message.id());
        }
        return builder;
    }
}
