package dev.fencedqueue.api;

import dev.fencedqueue.events.StreamMessage;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;

/** Turns a job stream's messages into SSE events: {@code id:} (the Redis stream entry id), {@code event:} and {@code data:}. */
final class SseMessages {

    private SseMessages() {
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
