package dev.fencedqueue.llm;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

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

    /**
     * The model name sent to the built-in simulator when {@code fq.llm.model} is empty; the simulator answers a request
     * that names no model as this one.
     */
    public static final String SIMULATOR_MODEL = "fenced-queue-simulator";
    private static final String DONE = "[DONE]";
    /**
     * The user message that asks a model to continue an answer that was cut off
     * ({@link ContinuationStyle#INSTRUCTION}), after the answer as an assistant message.
     */
    public static final String CONTINUE_INSTRUCTION = "Your answer above was cut off. Continue it exactly where it "
            + "stops, in the middle of a word or sentence if it stops there. Do not repeat any of it and do not add a "
            + "preamble: reply with the rest of the answer only.";
    /**
     * The question of {@link ContinuationProbe}'s probe, followed by the words to reply with (separated by spaces); the
     * simulator replies to it with those words.
     */
    public static final String PROBE_QUESTION = "Reply with exactly these words and nothing else: ";

    private final LlmConnector connector;
    private final LlmConfig config;
    private final ObjectMapper json;
    private final LocalSimulator simulator;

    public ChatCompletionsClient(LlmConnector connector, LlmConfig config, ObjectMapper json,
            LocalSimulator simulator) {
        this.connector = connector;
        this.config = config;
        this.json = json;
        this.simulator = simulator;
    }

    /**
     * Streams the answer to a question.
     *
     * @param query the user's question, must not be {@code null}
     * @param jobId the job id, sent as {@code X-Request-ID} for the server's logs
     * @return the answer's chunks, as {@link #open} gives them once opened
     */
    public Multi<ChatChunk> stream(String query, String jobId) {
        return open(request(query), jobId).onItem().transformToMulti(chunks -> chunks);
    }

    /**
     * Opens a streaming chat completion and waits for the response headers.
     *
     * @param request the request body (see {@link #request}, {@link #continuation}), must not be {@code null}
     * @param jobId the job id, sent as {@code X-Request-ID} for the server's logs
     * @return once the server accepted the request (a {@code 2xx} status), the answer's chunks in order, without
     *         {@code [DONE]}, completing after {@code [DONE]} (and the end of the response) and failing with
     *         {@link LlmException} when the server sends an {@code error} object or a malformed chunk, or ends the
     *         stream without {@code [DONE]} or without a chunk with a {@code finish_reason}; cancelling them closes
     *         the connection. Fails with
     *         {@link LlmRefusedException} when the server refuses the request ({@code 4xx}), otherwise as
     *         {@link LlmConnector#open} says
     */
    public Uni<Multi<ChatChunk>> open(ObjectNode request, String jobId) {
        String body;
        try {
            body = json.writeValueAsString(request);
        } catch (JsonProcessingException e) {
            return Uni.createFrom().failure(e);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(ResearchProtocolClient.REQUEST_ID, jobId);
        config.apiKey().filter(key -> !key.isBlank()).ifPresent(key -> headers.put("Authorization", "Bearer " + key));
        return Uni.createFrom().deferred(() -> connector.open(url(), body, headers)).map(this::chunks);
    }

    private Multi<ChatChunk> chunks(LlmExchange exchange) {
        return Multi.createFrom().deferred(() -> {
            AtomicBoolean done = new AtomicBoolean();
            AtomicBoolean finished = new AtomicBoolean();
            return SseEvents.of(exchange, "the LLM server")
                    .select().where(data -> {
                        if (DONE.equals(data.trim())) {
                            done.set(true);
                            return false;
                        }
                        return !done.get();
                    })
                    .map(this::chunk)
                    .invoke(chunk -> {
                        finished.compareAndSet(false, chunk.finishReason() != null);
                        if (chunk.usage() != null) {
                            exchange.reportTokens(chunk.usage().promptTokens(), chunk.usage().completionTokens());
                        }
                    })
                    .onCompletion().call(() -> {
                        if (!done.get()) {
                            return Uni.createFrom().failure(new LlmException("the LLM server ended its stream without "
                                    + "`data: [DONE]`: the answer is incomplete"));
                        }
                        return finished.get() ? Uni.createFrom().voidItem() : Uni.createFrom().failure(new LlmException(
                                "the LLM server ended its stream without a finish reason (`finish_reason`): the answer "
                                        + "is incomplete"));
                    });
        });
    }

    /**
     * @return {@code fq.llm.url} with {@code /v1/chat/completions} appended, or this instance's simulator
     * @throws LlmException when {@code fq.llm.url} is empty and the simulator is off
     */
    public URI url() {
        return config.url().filter(url -> !url.isBlank())
                .map(base -> URI.create(base.replaceAll("/+$", "") + "/v1/chat/completions"))
                .orElseGet(() -> simulator.url("/v1/chat/completions"));
    }

    /** @return the model asked: {@code fq.llm.model}, or the simulator's name when the simulator answers */
    public String model() {
        return config.model().filter(model -> !model.isBlank()).orElse(SIMULATOR_MODEL);
    }

    /**
     * @param query the user's question, must not be {@code null}
     * @return the request for a fresh answer: the system prompt and the question, {@code max_tokens} and
     *         {@code temperature} when configured, to send with {@link #open}
     */
    public ObjectNode request(String query) {
        ObjectNode request = json.createObjectNode().put("model", model()).put("stream", true);
        request.putArray("messages")
                .add(message("system", config.request().systemPrompt()))
                .add(message("user", query));
        request.putObject("stream_options").put("include_usage", true);
        config.request().maxTokens().ifPresent(max -> request.put("max_tokens", max));
        config.request().temperature().ifPresent(temperature -> request.put("temperature", temperature));
        return request;
    }

    /**
     * The request that continues a committed answer.
     *
     * @param query the user's question, must not be {@code null}
     * @param committedText the answer so far, to continue, must not be {@code null} nor empty
     * @param committedTokens completion tokens the answer so far cost, 0 or more
     * @param style how to ask for the continuation, must not be {@code null}
     * @return {@link #request(String)} with the committed text as an assistant message, and: for
     *         {@link ContinuationStyle#TRAILING_ASSISTANT}, nothing after it and {@code continue_final_message: true},
     *         {@code add_generation_prompt: false} (vLLM's, SGLang's and TGI's switches; llama.cpp's server and Ollama
     *         continue a trailing assistant message without them); for {@link ContinuationStyle#INSTRUCTION}, a user
     *         message after it that asks to continue exactly where it stops. {@code max_tokens} is reduced by the
     *         committed completion tokens (at least 1 is left).
     */
    public ObjectNode continuation(String query, String committedText, long committedTokens, ContinuationStyle style) {
        ObjectNode request = request(query);
        ArrayNode messages = (ArrayNode) request.get("messages");
        messages.add(message("assistant", committedText));
        if (style == ContinuationStyle.TRAILING_ASSISTANT) {
            request.put("continue_final_message", true).put("add_generation_prompt", false);
        } else {
            messages.add(message("user", CONTINUE_INSTRUCTION));
        }
        config.request().maxTokens().ifPresent(max -> request.put("max_tokens", Math.max(1, max - committedTokens)));
        return request;
    }

    /**
     * @param words the words the model is asked to reply with, at least 3
     * @param partial how many of them the trailing assistant message already holds, fewer than {@code words}
     * @return the probe of {@link ContinuationProbe}: a question whose answer is known, with the start of that answer as
     *         a trailing assistant message to continue, at most {@code words} tokens
     */
    ObjectNode probe(List<String> words, int partial) {
        ObjectNode request = json.createObjectNode().put("model", model()).put("stream", true)
                .put("max_tokens", words.size()).put("temperature", 0)
                .put("continue_final_message", true).put("add_generation_prompt", false);
        request.putArray("messages")
                .add(message("user", PROBE_QUESTION + String.join(" ", words)))
                .add(message("assistant", String.join(" ", words.subList(0, partial))));
        return request;
    }

    private ObjectNode message(String role, String content) {
        return json.createObjectNode().put("role", role).put("content", content);
    }

    private ChatChunk chunk(String data) {
        try {
            return ChatChunk.of(json.readTree(data));
        } catch (JsonProcessingException e) {
            throw ServerText.notJson("malformed chat completion chunk", data);
        }
    }
}
