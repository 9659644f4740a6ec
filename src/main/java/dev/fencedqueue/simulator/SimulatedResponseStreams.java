package dev.fencedqueue.simulator;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * The streams of the simulated Responses API: each writes one {@link SimulatedResponse}'s events to one HTTP client,
 * counted per {@code X-Request-ID} in {@link SimulatorStats}.
 */
final class SimulatedResponseStreams {

    private final SimulatorStats stats;
    private final Vertx vertx;
    private final ObjectMapper json;

    SimulatedResponseStreams(SimulatorStats stats, Vertx vertx, ObjectMapper json) {
        this.stats = stats;
        this.vertx = vertx;
        this.json = json;
    }

    /**
     * Streams a response's events after {@code after}, then live, as SSE with their type as {@code event:}, until it
     * ends; a stream the client closes stops a llama.cpp-like (unsequenced) response.
     *
     * @param context the request to answer
     * @param response the response
     * @param after the last sequence number the client has, -1 for none
     * @param unfinished whether the stream ends after {@link ResponsesDirectives#UNFINISHED_WORDS} words without the
     *        terminal event (and an unsequenced response stops)
     */
    void serve(RoutingContext context, SimulatedResponse response, long after, boolean unfinished) {
        String requestId = context.request().getHeader("X-Request-ID");
        HttpServerResponse http = context.response().setChunked(true).putHeader("Content-Type", "text/event-stream")
                .putHeader("Cache-Control", "no-cache");
        stats.opened(requestId);
        boolean[] ended = {false};
        int[] words = {0};
        AtomicReference<Runnable> stop = new AtomicReference<>(() -> {
        });
        stop.set(response.subscribe(after, event -> {
            if (http.closed() || http.ended() || ended[0]) {
                return;
            }
            String type = type(event);
            if (unfinished && type.equals("response.output_text.delta")
                    && ++words[0] > ResponsesDirectives.UNFINISHED_WORDS) {
                ended[0] = true; // the server stops short: no terminal event
                vertx.runOnContext(ignored -> {
                    stop.get().run();
                    http.end();
                    if (!response.sequenced()) {
                        response.stop(SimulatedResponse.Status.CANCELLED);
                    }
                });
                return;
            }
            http.write("event: " + type + "\ndata: " + event + "\n\n");
        }, () -> vertx.runOnContext(ignored -> {
            ended[0] = true;
            stats.completed(requestId);
            if (!http.closed() && !http.ended()) {
                http.end();
            }
        })));
        http.closeHandler(ignored -> {
            stop.get().run();
            if (!response.sequenced()) { // llama.cpp's server stops generating when the client goes
                response.stop(SimulatedResponse.Status.CANCELLED);
            }
            if (!ended[0]) {
                stats.closedEarly(requestId);
            }
        });
    }

    private String type(String event) {
        try {
            return json.readTree(event).path("type").asText();
        } catch (IOException e) {
            throw new IllegalStateException("the simulator wrote an event that is not JSON", e);
        }
    }
}
