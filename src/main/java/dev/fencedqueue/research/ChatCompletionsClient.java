package dev.fencedqueue.research;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.config.LlmConfig;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Streams an answer from an OpenAI-compatible server (OpenAI's "Create chat completion" with {@code stream: true},
 * as vLLM, Ollama, llama.cpp's server and hosted APIs serve it): {@code POST {fq.llm.url}/v1/chat/completions} with
 * the system prompt and the query, {@code stream_options: {include_usage: true}}; the answer comes as SSE
 * {@code data:} chunks ({@link ChatChunk}), the last one with {@code usage}, then {@code data: [DONE]}. The API
 * key goes in {@code Authorization: Bearer} only. Cancelling the returned {@code Multi} closes the connection.
 */
@ApplicationScoped
public class ChatCompletionsClient {

    /** The model name sent to the built-in simulator when {@code fq.llm.model} is empty. */
    static final String SIMULATOR_MODEL = "fenced-queue-simulator";
    private static final String DONE = "[DONE]";

    private final LlmConnector connector;
    private final LlmConfig config;
    private final ObjectMapper json;

    public ChatCompletionsClient(LlmConnector connector, LlmConfig config, ObjectMapper json) {
        this.connector = connector;
        this.config = config;
        this.json = json;
    }

    /**
     * @param query the user's question, must not be {@code null}
     * @param jobId the job id, sent as {@code X-Request-ID} for the server's logs
     * @return the answer's chunks in order, without {@code [DONE]}; completes after {@code [DONE]} (and the end of
     *         the response); fails with {@link LlmException} when the server cannot be reached or refuses (after
     *         the retries of {@link LlmConnector}), sends an {@code error} object or a malformed chunk, or ends
     *         the stream without {@code [DONE]}
     */
    public Multi<ChatChunk> stream(String query, String jobId) {
        String body;
        try {
            body = json.writeValueAsString(request(query));
        } catch (JsonProcessingException e) {
            return Multi.createFrom().failure(e);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(ResearchProtocolClient.REQUEST_ID, jobId);
        config.apiKey().filter(key -> !key.isBlank()).ifPresent(key -> headers.put("Authorization", "Bearer " + key));
        return Uni.createFrom().deferred(() -> connector.open(url(), body, headers))
                .onItem().transformToMulti(exchange -> Multi.createFrom().deferred(() -> {
            AtomicBoolean done = new AtomicBoolean();
            return SseEvents.of(exchange, "the LLM server")
                    .select().where(data -> {
                        if (DONE.equals(data.trim())) {
                            done.set(true);
                            return false;
                        }
                        return !done.get();
                    })
                    .map(this::chunk)
                    .onCompletion().call(() -> done.get() ? Uni.createFrom().voidItem() : Uni.createFrom()
                            .failure(new LlmException("the LLM server ended its stream without `data: [DONE]`: "
                                    + "the answer may be incomplete")));
        }));
    }

    /**
     * @return {@code fq.llm.url} with {@code /v1/chat/completions} appended, or this instance's simulator
     * @throws LlmException when {@code fq.llm.url} is empty and the simulator is off
     */
    public URI url() {
        return config.url().filter(url -> !url.isBlank())
                .map(base -> URI.create(base.replaceAll("/+$", "") + "/v1/chat/completions"))
                .orElseGet(() -> ResearchProtocolClient.simulator("/v1/chat/completions"));
    }

    /** @return the model asked: {@code fq.llm.model}, or the simulator's name when the simulator answers */
    public String model() {
        return config.model().filter(model -> !model.isBlank()).orElse(SIMULATOR_MODEL);
    }

    private ObjectNode request(String query) {
        ObjectNode request = json.createObjectNode().put("model", model()).put("stream", true);
        request.putArray("messages")
                .add(json.createObjectNode().put("role", "system").put("content", config.systemPrompt()))
                .add(json.createObjectNode().put("role", "user").put("content", query));
        request.putObject("stream_options").put("include_usage", true);
        config.maxTokens().ifPresent(max -> request.put("max_tokens", max));
        config.temperature().ifPresent(temperature -> request.put("temperature", temperature));
        return request;
    }

    private ChatChunk chunk(String data) {
        try {
            return ChatChunk.of(json.readTree(data));
        } catch (JsonProcessingException e) {
            throw new LlmException("malformed chat completion chunk, not JSON: " + e.getOriginalMessage());
        }
    }
}
