package dev.fencedqueue.simulator;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.config.SimulatorConfig;
import dev.fencedqueue.llm.ChatCompletionsClient;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * The built-in simulator's Responses API in background mode (OpenAI's "Create a model response" with
 * {@code background: true, stream: true, store: true}): {@code POST /simulator/v1/responses} starts a
 * {@link SimulatedResponse} that a timer generates ({@code fq.simulator.answer.token-interval} per word) whether or not a
 * client reads it, and streams its events; {@code GET /simulator/v1/responses/{id}?stream=true&starting_after=N}
 * re-attaches (events after {@code N}, then live), refused with {@code 400} once the response is older than
 * {@code fq.simulator.responses.restream-window} (OpenAI's "more than 5 minutes old"); {@code GET /simulator/v1/responses/{id}}
 * returns the response object; {@code POST /simulator/v1/responses/{id}/cancel} cancels it. The question (first user
 * message of {@code input}) is answered as the chat endpoint answers it ({@link SimulatedCompletion}, continuations
 * included). Directives in the question ({@link ResponsesDirectives}) make a fresh response (not a continuation)
 * misbehave when a client comes back for it (a re-attach or a retrieval), so that every fallback can be tested:
 * {@code [sim:gone]} (404: no longer stored), {@code [sim:failed]}, {@code [sim:cancelled]}, {@code [sim:queued]}
 * (stuck in {@code queued}) and {@code [sim:old]} (refuses to re-stream); {@code [sim:unfinished]} ends every stream of
 * the answer after a few words without its terminal event; {@code [sim:llama-cpp]} (or
 * {@code fq.simulator.responses.style=llama-cpp}) serves the answer as llama.cpp's server does: events without
 * {@code sequence_number}, generation stopped when the stream closes, {@code 404} to retrieving or cancelling it.
 */
@ApplicationScoped
public class ResponsesSimulator {

    private static final String PATH = "/simulator/v1/responses";
    private static final int KEPT = 1000;

    private final SimulatorConfig config;
    private final SimulatedPrompts prompts;
    private final ObjectMapper json;
    private final SimulatedProvider provider;
    private final Vertx vertx;
    private final SimulatedResponseStreams streams;
    private final Map<String, SimulatedResponse> responses = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SimulatedResponse> eldest) {
            return size() > KEPT;
        }
    };
    private final Map<String, ResponsesDirectives> directives = new LinkedHashMap<>();
    private final Map<String, List<String>> byRequestId = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, List<String>> eldest) {
            return size() > KEPT;
        }
    };

    public ResponsesSimulator(SimulatorConfig config, SimulatorStats stats, SimulatedProvider provider,
            ObjectMapper json, Vertx vertx, ResearchConfig research) {
        this.provider = provider;
        this.prompts = SimulatedPrompts.of(research.deep());
        this.config = config;
        this.json = json;
        this.vertx = vertx;
        this.streams = new SimulatedResponseStreams(stats, vertx, json);
    }

    void install(@Observes Router router) {
        if (!config.enabled()) {
            return;
        }
        router.post(PATH).handler(BodyHandler.create(false)).handler(this::create);
        router.get(PATH + "/:id").handler(this::retrieve);
        router.post(PATH + "/:id/cancel").handler(this::cancel);
    }

    private void create(RoutingContext context) {
        String body = context.body().asString();
        JsonNode request;
        try {
            request = json.readTree(body == null ? "" : body);
        } catch (IOException e) {
            error(context.response(), 400, "the body must be JSON: " + e.getMessage());
            return;
        }
        List<String[]> messages = messages(request.path("input"));
        if (messages.isEmpty()) {
            error(context.response(), 400, "`input` must be a string or a non-empty array of messages");
            return;
        }
        List<String> tokens;
        try {
            tokens = SimulatedCompletion.tokens(messages, config.answer().words(), config.continuation().trailingAssistant(),
                    config.continuation().repeatWords(), prompts);
        } catch (SimulatedCompletion.Refused refused) {
            error(context.response(), 400, refused.getMessage());
            return;
        }
        int max = request.path("max_output_tokens").asInt(Integer.MAX_VALUE);
        String id = "resp_sim_" + UUID.randomUUID().toString().replace("-", "");
        String model = request.path("model").asText(ChatCompletionsClient.SIMULATOR_MODEL);
        long input = messages.stream().mapToLong(m -> m[1] == null ? 0 : m[1].split("\\s+").length).sum();
        SimulatedProvider.Admission admission = provider.admit(input + (request.has("max_output_tokens") ? max
                : tokens.size()));
        if (admission.reset()) {
            context.request().connection().close(); // a provider that is down: no response at all
            return;
        }
        admission.headers().forEach(context.response()::putHeader);
        if (!admission.admitted()) {
            context.response().setStatusCode(admission.status()).putHeader("Content-Type", "application/json")
                    .end(admission.body());
            return;
        }
        ResponsesDirectives directed = ResponsesDirectives.of(messages, config.responses().style());
        SimulatedResponse response = new SimulatedResponse(id, model, System.currentTimeMillis(),
                tokens.subList(0, Math.min(max, tokens.size())), max < tokens.size(), !directed.llamaCpp(), input, json);
        synchronized (responses) {
            responses.put(id, response);
            byRequestId.computeIfAbsent(String.valueOf(context.request().getHeader("X-Request-ID")),
                    key -> new ArrayList<>()).add(id);
            directives.put(id, directed);
            if (directives.size() > KEPT) {
                directives.remove(directives.keySet().iterator().next());
            }
        }
        generate(response);
        if (request.path("stream").asBoolean(false)) {
            streams.serve(context, response, -1, directed.unfinished());
        } else {
            send(context.response(), 200, response.snapshot());
        }
    }

    /** Generates the response's next word after {@code fq.simulator.answer.token-interval}, read anew for each word. */
    private void generate(SimulatedResponse response) {
        vertx.setTimer(Math.max(1, config.answer().tokenInterval().toMillis()), timer -> {
            response.step();
            if (response.running()) {
                generate(response);
            }
        });
    }

    private void retrieve(RoutingContext context) {
        SimulatedResponse response = comeBack(context);
        if (response == null) {
            return;
        }
        if (!"true".equals(context.request().getParam("stream"))) {
            send(context.response(), 200, response.snapshot());
            return;
        }
        long age = System.currentTimeMillis() - response.createdAtMillis();
        if ("old".equals(directives(response.id()).comeBack()) || age > config.responses().restreamWindow().toMillis()) {
            error(context.response(), 400, "Response " + response.id() + " cannot be streamed because it is more than "
                    + config.responses().restreamWindow().toSeconds() + " seconds old.");
            return;
        }
        String after = context.request().getParam("starting_after");
        streams.serve(context, response, after == null ? -1 : Long.parseLong(after),
                directives(response.id()).unfinished());
    }

    private void cancel(RoutingContext context) {
        SimulatedResponse response = find(context.pathParam("id"));
        if (response == null || !response.sequenced()) {
            notFound(context, response);
            return;
        }
        response.stop(SimulatedResponse.Status.CANCELLED);
        send(context.response(), 200, response.snapshot());
    }

    /** @return the response a client comes back for, after applying its question's directive; null when answered 404 */
    private SimulatedResponse comeBack(RoutingContext context) {
        String id = context.pathParam("id");
        SimulatedResponse response = find(id);
        if (response != null && !response.sequenced()) {
            notFound(context, response);
            return null;
        }
        String directive = directives(id).comeBack();
        if (response != null && directive != null) {
            switch (directive) {
                case "gone" -> {
                    synchronized (responses) {
                        responses.remove(id);
                    }
                    response.stop(SimulatedResponse.Status.CANCELLED);
                    response = null;
                }
                case "failed" -> response.stop(SimulatedResponse.Status.FAILED);
                case "cancelled" -> response.stop(SimulatedResponse.Status.CANCELLED);
                case "queued" -> response.stall();
                default -> {
                }
            }
        }
        if (response == null) {
            error(context.response(), 404, "No response found with id '" + id + "'.");
        }
        return response;
    }

    /**
     * @param requestId the {@code X-Request-ID} the responses were created with (a job id)
     * @return the status of each response created with it, in order of creation ({@code queued},
     *         {@code in_progress}, {@code completed}, {@code failed}, {@code cancelled}; {@code gone} when no longer kept)
     */
    public List<String> statuses(String requestId) {
        synchronized (responses) {
            return byRequestId.getOrDefault(requestId, List.of()).stream().map(id -> responses.containsKey(id)
                    ? responses.get(id).snapshot().path("status").asText() : "gone").toList();
        }
    }

    private SimulatedResponse find(String id) {
        synchronized (responses) {
            return responses.get(id);
        }
    }

    private ResponsesDirectives directives(String id) {
        synchronized (responses) {
            return directives.getOrDefault(id, new ResponsesDirectives(null, false, false));
        }
    }

    /** Answers {@code 404}: for a response of a llama.cpp-like server, as llama.cpp's server answers a route it lacks. */
    private void notFound(RoutingContext context, SimulatedResponse response) {
        error(context.response(), 404, response == null ? "No response found with id '" + context.pathParam("id") + "'."
                : "File Not Found");
    }

    /** @return {@code input} as {@code [role, text]} pairs: a string is one user message */
    private static List<String[]> messages(JsonNode input) {
        List<String[]> messages = new ArrayList<>();
        if (input.isTextual()) {
            messages.add(new String[] {"user", input.asText()});
        } else if (input.isArray()) {
            for (JsonNode item : input) {
                JsonNode content = item.path("content");
                String text;
                if (content.isArray()) {
                    StringBuilder joined = new StringBuilder();
                    content.forEach(part -> joined.append(part.path("text").asText("")));
                    text = joined.toString();
                } else {
                    text = content.asText("");
                }
                messages.add(new String[] {item.path("role").asText("user"), text});
            }
        }
        return messages;
    }

    private void send(HttpServerResponse response, int status, ObjectNode body) {
        response.setStatusCode(status).putHeader("Content-Type", "application/json").end(body.toString());
    }

    private void error(HttpServerResponse response, int status, String message) {
        ObjectNode body = json.createObjectNode();
        body.putObject("error").put("message", message).put("type", "invalid_request_error");
        send(response, status, body);
    }
}
