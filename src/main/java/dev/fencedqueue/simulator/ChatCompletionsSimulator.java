package dev.fencedqueue.simulator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import com.fasterxml.jackson.annotation.JsonProperty;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.config.SimulatorConfig;
import dev.fencedqueue.llm.ChatCompletionsClient;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.core.Context;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * The built-in simulator's OpenAI-compatible endpoint: {@code POST /simulator/v1/chat/completions} with
 * {@code stream: true} answers, word by word (one {@code chat.completion.chunk} per
 * {@code fq.simulator.answer.token-interval}), a Markdown report on the first user message, or the continuation of an answer
 * given as an assistant message ({@link SimulatedCompletion}), then a chunk with
 * {@code finish_reason} ({@code stop}, or {@code length} when {@code max_tokens} cut it), a {@code usage} chunk
 * when {@code stream_options.include_usage} is set, and {@code data: [DONE]}, as OpenAI's streaming format does.
 * Words count as tokens. A trailing assistant message refused ({@code fq.simulator.continuation.trailing-assistant=refuse}) gets
 * {@code 400} with an OpenAI error object. Streams are counted per {@code X-Request-ID} in {@link SimulatorStats}. The
 * provider's limits and outages ({@link SimulatedProvider}) answer first: a request past them gets {@code 429} (or
 * {@code 503}, {@code 500}, a closed connection), an admitted one OpenAI's {@code x-ratelimit-*} headers.
 */
@Path("/simulator/v1/chat/completions")
@Tag(name = "simulator", description = "Built-in research LLM simulator")
public class ChatCompletionsSimulator {

    private final SimulatorConfig config;
    private final SimulatedPrompts prompts;
    private final SimulatorStats stats;
    private final SimulatedProvider provider;
    private final ObjectMapper json;

    public ChatCompletionsSimulator(SimulatorConfig config, SimulatorStats stats, SimulatedProvider provider,
            ObjectMapper json, ResearchConfig research) {
        this.provider = provider;
        this.prompts = SimulatedPrompts.of(research.deep());
        this.config = config;
        this.stats = stats;
        this.json = json;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.TEXT_PLAIN)
    @Operation(summary = "Stream a simulated chat completion (OpenAI's streaming format)")
    public Multi<String> complete(@Valid @NotNull(message = "the body must be a chat completion request") ChatRequest request,
            @RestHeader("X-Request-ID") String requestId, @Context HttpServerRequest connection) {
        List<Message> messages = request.messages();
        String model = request.model() == null ? ChatCompletionsClient.SIMULATOR_MODEL : request.model();
        int maxTokens = request.maxTokens() == null ? Integer.MAX_VALUE : request.maxTokens();
        boolean usage = request.streamOptions() != null && request.streamOptions().path("include_usage").asBoolean(false);
        List<String> words;
        try {
            words = SimulatedCompletion.tokens(messages.stream().map(m -> new String[] {m.role(), m.content()}).toList(),
                    config.answer().words(), config.continuation().trailingAssistant(), config.continuation().repeatWords(), prompts);
        } catch (SimulatedCompletion.Refused refused) {
            throw new WebApplicationException(refused.getMessage(), Response.status(400).type(MediaType.APPLICATION_JSON)
                    .entity(json.createObjectNode().set("error", json.createObjectNode().put("message", refused.getMessage())
                            .put("type", "invalid_request_error")).toString()).build());
        }
        int sent = Math.min(words.size(), maxTokens);
        long promptTokens = promptTokens(messages);
        SimulatedProvider.Admission admission = provider.admit(promptTokens
                + (request.maxTokens() == null ? sent : request.maxTokens()));
        if (admission.reset()) {
            connection.connection().close(); // a provider that is down: no response at all
            return Multi.createFrom().nothing();
        }
        if (!admission.admitted()) {
            Response.ResponseBuilder refused = Response.status(admission.status()).type(MediaType.APPLICATION_JSON)
                    .entity(admission.body());
            admission.headers().forEach(refused::header);
            throw new WebApplicationException(refused.build());
        }
        Duration interval = config.answer().tokenInterval();
        String id = "chatcmpl-sim-" + UUID.randomUUID();
        // The rate-limit headers go out with the stream's head (written with its first event).
        admission.headers().forEach(connection.response()::putHeader);
        return Multi.createFrom().deferred(() -> {
            stats.opened(requestId);
            Multi<String> deltas = Multi.createFrom().range(0, sent)
                    .onItem().call(i -> Uni.createFrom().voidItem().onItem().delayIt().by(interval))
                    .map(i -> chunk(id, model, words.get(i), null));
            List<String> tail = new ArrayList<>();
            tail.add(chunk(id, model, null, sent < words.size() ? "length" : "stop"));
            if (usage) {
                ObjectNode last = base(id, model);
                last.putArray("choices");
                last.putObject("usage").put("prompt_tokens", promptTokens).put("completion_tokens", sent)
                        .put("total_tokens", promptTokens + sent);
                tail.add(last.toString());
            }
            tail.add("[DONE]");
            return Multi.createBy().concatenating().streams(deltas, Multi.createFrom().iterable(tail))
                    .onCompletion().invoke(() -> stats.completed(requestId))
                    .onCancellation().invoke(() -> stats.closedEarly(requestId));
        });
    }

    /**
     * The fields of OpenAI's chat completion request the simulator reads.
     *
     * @param model the model, echoed in the chunks
     * @param messages {@code [{role, content}, ...]}; the first {@code user} message is the question
     * @param stream must be {@code true}: the simulator only streams
     * @param maxTokens most words of the answer, or {@code null}
     * @param streamOptions {@code {include_usage: true}} adds the usage chunk
     */
    @RegisterForReflection
    public record ChatRequest(String model,
            @NotEmpty(message = "`messages` must be a non-empty array") List<Message> messages,
            @AssertTrue(message = "the simulator only streams: set `stream` to true") boolean stream,
            @JsonProperty("max_tokens") Integer maxTokens,
            @JsonProperty("stream_options") JsonNode streamOptions) {
    }

    /**
     * One message of the conversation.
     *
     * @param role {@code system}, {@code user} or {@code assistant}
     * @param content its text
     */
    @RegisterForReflection
    public record Message(String role, String content) {
    }

    private String chunk(String id, String model, String content, String finishReason) {
        ObjectNode chunk = base(id, model);
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
        ObjectNode delta = choice.putObject("delta");
        if (content != null) {
            delta.put("content", content);
        }
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        return chunk.toString();
    }

    private ObjectNode base(String id, String model) {
        return json.createObjectNode().put("id", id).put("object", "chat.completion.chunk")
                .put("created", System.currentTimeMillis() / 1000).put("model", model);
    }

    private static long promptTokens(List<Message> messages) {
        long words = 0;
        for (Message message : messages) {
            words += message.content() == null ? 0 : message.content().split("\\s+").length;
        }
        return words;
    }
}
