package dev.fencedqueue.llm;

import static dev.fencedqueue.llm.ServerText.abbreviate;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpMethod;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Speaks OpenAI's Responses API in background mode ("Create a model response" with {@code background: true,
 * stream: true, store: true}; "Retrieve a model response", streamed again with {@code starting_after}; "Cancel a
 * response"): {@code {fq.llm.url}/v1/responses}, or this instance's simulator. A background response goes on being
 * generated when the stream that started it closes, which is what lets a run that takes a job over re-attach to it.
 * The API key goes in {@code Authorization: Bearer} only. Cancelling a returned {@code Multi} closes its connection
 * (the response itself goes on). A server that serves the API without background mode (llama.cpp's server translates
 * the request to a chat completion, sends events without {@code sequence_number} and retrieves nothing) is read too:
 * its events are numbered locally ({@link ResponseEvent#numberedLocally()}).
 */
@ApplicationScoped
public class ResponsesClient {

    private static final String TERMINAL = "response.completed response.incomplete response.failed response.cancelled";

    private final LlmConnector connector;
    private final LlmConfig config;
    private final ChatCompletionsClient chat;
    private final ObjectMapper json;
    private final LocalSimulator simulator;

    public ResponsesClient(LlmConnector connector, LlmConfig config, ChatCompletionsClient chat, ObjectMapper json,
            LocalSimulator simulator) {
        this.connector = connector;
        this.config = config;
        this.chat = chat;
        this.json = json;
        this.simulator = simulator;
    }

    /**
     * One event of a response's stream.
     *
     * @param sequence its {@code sequence_number}; for a stream whose events carry none (llama.cpp's server), its
     *        position in this stream from 0, which names no event of the response for a re-attach
     * @param type its {@code type}, e.g. {@code response.output_text.delta}
     * @param data the whole event
     * @param numberedLocally whether {@code sequence} was numbered here, the stream having no sequence numbers
     */
    public record ResponseEvent(long sequence, String type, JsonNode data, boolean numberedLocally) {

        /** @return whether it ends the response */
        public boolean isTerminal() {
            return TERMINAL.contains(type);
        }
    }

    /**
     * Creates a background response and streams it.
     *
     * @param request the body ({@link #request}, {@link #continuation})
     * @param jobId sent as {@code X-Request-ID}
     * @return once the server accepted it, its events, completing after the terminal one ({@code response.completed},
     *         {@code .incomplete}, {@code .failed} or {@code .cancelled}); numbered locally when the server sends no
     *         {@code sequence_number} (as the first event says); failing with {@link LlmException} when the stream
     *         ends before the terminal event or an event is malformed. Fails with
     *         {@link LlmRefusedException} on a {@code 4xx}, otherwise as {@link LlmConnector#open} says
     */
    public Uni<Multi<ResponseEvent>> create(ObjectNode request, String jobId) {
        String body;
        try {
            body = json.writeValueAsString(request);
        } catch (JsonProcessingException e) {
            return Uni.createFrom().failure(e);
        }
        return Uni.createFrom().deferred(() -> connector.open(HttpMethod.POST, url(""), body, headers(jobId),
                "text/event-stream")).map(this::events);
    }

    /**
     * Streams a response again from after an event ({@code GET /v1/responses/{id}?stream=true&starting_after=N}).
     *
     * @param responseId the response
     * @param after the last sequence number already had
     * @param jobId sent as {@code X-Request-ID}
     * @return as {@link #create} says; a response that can no longer be streamed again (too old) or is gone fails
     *         with {@link LlmRefusedException} ({@code 400}, {@code 404})
     */
    public Uni<Multi<ResponseEvent>> reattach(String responseId, long after, String jobId) {
        return Uni.createFrom().deferred(() -> connector.open(HttpMethod.GET,
                url("/" + responseId + "?stream=true&starting_after=" + after), null, headers(jobId),
                "text/event-stream")).map(this::events);
    }

    /**
     * @param responseId the response
     * @param jobId sent as {@code X-Request-ID}
     * @return the response object ({@code status}, {@code output}, {@code usage}); fails with
     *         {@link LlmRefusedException} ({@code 404}) when it is gone
     */
    public Uni<JsonNode> retrieve(String responseId, String jobId) {
        return Uni.createFrom().deferred(() -> connector.json(HttpMethod.GET, url("/" + responseId), null,
                headers(jobId), json));
    }

    /**
     * @param responseId the response to cancel
     * @param jobId sent as {@code X-Request-ID}
     * @return the response object after the cancellation
     */
    public Uni<JsonNode> cancel(String responseId, String jobId) {
        return Uni.createFrom().deferred(() -> connector.json(HttpMethod.POST, url("/" + responseId + "/cancel"), "{}",
                headers(jobId), json));
    }

    /**
     * @param query the user's question, must not be {@code null}
     * @return the request of a fresh answer, to send with {@link #create}: the system prompt as {@code instructions},
     *         the question as input, {@code background}, {@code stream}, {@code store}, and the configured tools,
     *         reasoning summary, {@code max_output_tokens} and {@code temperature}
     */
    public ObjectNode request(String query) {
        ObjectNode request = json.createObjectNode().put("model", chat.model()).put("background", true)
                .put("stream", true).put("store", true).put("instructions", config.request().systemPrompt());
        request.putArray("input").add(message("user", query));
        config.request().tools().ifPresent(tools -> {
            ArrayNode array = request.putArray("tools");
            tools.forEach(type -> array.addObject().put("type", type));
        });
        config.request().reasoningSummary().ifPresent(summary -> request.putObject("reasoning").put("summary", summary));
        config.request().maxTokens().ifPresent(max -> request.put("max_output_tokens", max));
        config.request().temperature().ifPresent(temperature -> request.put("temperature", temperature));
        return request;
    }

    /**
     * @param query the user's question, must not be {@code null}
     * @param committedText the answer so far, to continue, must not be {@code null} nor empty
     * @param committedTokens completion tokens the answer so far cost, 0 or more
     * @param style {@link ContinuationStyle#TRAILING_ASSISTANT}: the committed text as a last assistant message marked
     *        {@code "status": "in_progress"}, which vLLM's Responses API continues; {@link ContinuationStyle#INSTRUCTION}:
     *        followed by a user message that asks to continue it
     * @return a request for a new response that continues the committed answer, {@code max_output_tokens} reduced by
     *         the committed tokens
     */
    public ObjectNode continuation(String query, String committedText, long committedTokens,
            ContinuationStyle style) {
        ObjectNode request = request(query);
        ArrayNode input = (ArrayNode) request.get("input");
        ObjectNode partial = message("assistant", committedText);
        input.add(partial);
        if (style == ContinuationStyle.TRAILING_ASSISTANT) {
            partial.put("status", "in_progress");
        } else {
            input.add(message("user", ChatCompletionsClient.CONTINUE_INSTRUCTION));
        }
        config.request().maxTokens().ifPresent(max -> request.put("max_output_tokens",
                Math.max(1, max - committedTokens)));
        return request;
    }

    private ObjectNode message(String role, String content) {
        return json.createObjectNode().put("role", role).put("content", content);
    }

    private Multi<ResponseEvent> events(LlmExchange exchange) {
        return Multi.createFrom().deferred(() -> {
            AtomicBoolean ended = new AtomicBoolean();
            Numbering numbering = new Numbering();
            return SseEvents.of(exchange, "the LLM server")
                    .select().where(data -> !ended.get())
                    .map(data -> numbering.number(event(data)))
                    .invoke(event -> {
                        ended.compareAndSet(false, event.isTerminal());
                        JsonNode usage = event.data() == null ? null : event.data().path("response").path("usage");
                        if (event.isTerminal() && usage != null && usage.isObject()) {
                            exchange.reportTokens(usage.path("input_tokens").asLong(), usage.path("output_tokens")
                                    .asLong());
                        }
                    })
                    .onCompletion().call(() -> ended.get() ? Uni.createFrom().voidItem() : Uni.createFrom()
                            .failure(new LlmException("the LLM server ended the response's stream without its "
                                    + "terminal event (`response.completed`, `response.incomplete`, `response.failed` "
                                    + "or `response.cancelled`): the answer is incomplete")));
        });
    }

    /**
     * Numbers the events of one stream: by their {@code sequence_number} when its first event has one, else by their
     * position in the stream. Not thread-safe: the events of one stream arrive one after the other.
     */
    private static final class Numbering {

        private long received;
        private Boolean local;

        ResponseEvent number(ResponseEvent event) {
            long position = received++;
            if (local == null) {
                local = event.sequence() < 0;
            }
            return local ? new ResponseEvent(position, event.type(), event.data(), true) : event;
        }
    }

    /** @return the event, with its {@code sequence_number} or -1 when it has none */
    private ResponseEvent event(String data) {
        JsonNode node;
        try {
            node = json.readTree(data);
        } catch (JsonProcessingException e) {
            throw ServerText.notJson("malformed response event", data);
        }
        if (!node.path("type").isTextual()) {
            throw new LlmException("malformed response event, without `type`: " + abbreviate(data));
        }
        if ("error".equals(node.path("type").asText())) {
            throw new LlmException("the LLM server sent an error in its stream: "
                    + abbreviate(node.path("message").asText(node.path("error").path("message").asText(data))));
        }
        JsonNode sequence = node.get("sequence_number");
        return new ResponseEvent(sequence != null && sequence.isIntegralNumber() && sequence.asLong() >= 0
                ? sequence.asLong() : -1, node.get("type").asText(), node, false);
    }

    private Map<String, String> headers(String jobId) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(ResearchProtocolClient.REQUEST_ID, jobId);
        config.apiKey().filter(key -> !key.isBlank()).ifPresent(key -> headers.put("Authorization", "Bearer " + key));
        return headers;
    }

    /**
     * @return the Responses endpoint ({@code /v1/responses} of {@code fq.llm.url}, or of this instance's simulator)
     * @throws LlmException when {@code fq.llm.url} is empty and the simulator is off
     */
    public URI url() {
        return url("");
    }

    /** @return the model the requests name: {@code fq.llm.model}, or the simulator's name when the simulator answers */
    public String model() {
        return chat.model();
    }

    private URI url(String rest) {
        return config.url().filter(url -> !url.isBlank())
                .map(base -> URI.create(base.replaceAll("/+$", "") + "/v1/responses" + rest))
                .orElseGet(() -> simulator.url("/v1/responses" + rest));
    }
}
