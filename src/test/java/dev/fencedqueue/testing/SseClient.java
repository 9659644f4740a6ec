package dev.fencedqueue.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A minimal SSE client for tests (java.net.http): records every message of one stream, in order, and
 * completes {@link #ended()} when the server ends the response.
 */
public final class SseClient implements AutoCloseable {

    /**
     * One received SSE message; {@code comment} is set for comment lines only. Its JSON data is read with Jackson, not
     * with REST Assured's {@code JsonPath}: that evaluates a Groovy expression per call, some milliseconds each, which
     * made a test checking thousands of events spend a minute on it.
     */
    public record Message(String id, String event, String data, String comment) {

        public boolean isComment() {
            return comment != null;
        }

        /** @return the {@code fencingToken} of the JSON data (a Redis clock value in ms: read it as a long) */
        public long fencingToken() {
            return json().path("fencingToken").asLong();
        }

        /**
         * @param field a top-level field of the JSON data
         * @return its value as text, or {@code null} when the data has no such field (or it is JSON {@code null})
         */
        public String field(String field) {
            JsonNode value = json().get(field);
            return value == null || value.isNull() ? null : value.asText();
        }

        /** @return the data parsed as JSON */
        public JsonNode json() {
            try {
                return JSON.readTree(data);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("SSE data is not JSON: " + data, e);
            }
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final List<Message> messages = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Integer> status = new CompletableFuture<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();

    private String id;
    private String event;
    private StringBuilder data;

    private SseClient() {
    }

    /**
     * Opens a stream.
     *
     * @param url the stream URL
     * @param lastEventId the {@code Last-Event-ID} header, or {@code null}
     * @return the client, receiving in the background
     */
    public static SseClient open(String url, String lastEventId) {
        return open(url, lastEventId == null ? Map.of() : Map.of("Last-Event-ID", lastEventId));
    }

    /**
     * Opens a stream with request headers of the caller's (credentials, {@code Last-Event-ID}).
     *
     * @param url the stream URL
     * @param headers request headers, must not be {@code null}
     * @return the client, receiving in the background
     */
    public static SseClient open(String url, Map<String, String> headers) {
        SseClient client = new SseClient();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream").GET();
        headers.forEach(request::header);
        HTTP.sendAsync(request.build(), info -> {
            client.status.complete(info.statusCode());
            return HttpResponse.BodySubscribers.fromLineSubscriber(client.new LineSubscriber());
        }).whenComplete((response, failure) -> {
            if (failure != null) {
                client.status.completeExceptionally(failure);
                client.ended.completeExceptionally(failure);
            }
        });
        return client;
    }

    public static SseClient open(String url) {
        return open(url, Map.of());
    }

    /** @return every message received so far, comments included */
    public List<Message> messages() {
        return List.copyOf(messages);
    }

    /** @return the messages received so far that are events (not comments) */
    public List<Message> events() {
        return messages.stream().filter(m -> !m.isComment()).toList();
    }

    /** @return the HTTP status, once the headers arrived */
    public CompletableFuture<Integer> status() {
        return status;
    }

    /** @return completes when the server ended the stream */
    public CompletableFuture<Void> ended() {
        return ended;
    }

    @Override
    public void close() {
        Flow.Subscription s = subscription.get();
        if (s != null) {
            s.cancel();
        }
    }

    private void line(String line) {
        if (line.isEmpty()) {
            if (data != null || event != null) {
                messages.add(new Message(id, event, data == null ? null : data.toString(), null));
            }
            id = null;
            event = null;
            data = null;
            return;
        }
        if (line.startsWith(":")) {
            messages.add(new Message(null, null, null, line.substring(1).trim()));
            return;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        switch (field) {
            case "id" -> id = value;
            case "event" -> event = value;
            case "data" -> {
                if (data == null) {
                    data = new StringBuilder(value);
                } else {
                    data.append('\n').append(value);
                }
            }
            default -> {
            }
        }
    }

    private final class LineSubscriber implements Flow.Subscriber<String> {
        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription.set(s);
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String item) {
            line(item);
        }

        @Override
        public void onError(Throwable throwable) {
            ended.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            line("");
            ended.complete(null);
        }
    }
}
