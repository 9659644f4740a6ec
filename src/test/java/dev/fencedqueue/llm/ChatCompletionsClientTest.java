package dev.fencedqueue.llm;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.llm.budget.ProviderLimits;
import dev.fencedqueue.config.SimulatorConfig;
import dev.fencedqueue.llm.budget.LlmBusyException;
import dev.fencedqueue.simulator.SimulatorStats;
import dev.fencedqueue.testing.LocalHttpServer;
import dev.fencedqueue.testing.LocalHttpServer.Exchange;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.helpers.test.AssertSubscriber;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The OpenAI-compatible streaming client against a real HTTP server ({@link LocalHttpServer}, one path per
 * behaviour, in OpenAI's streaming format) and against the built-in simulator's endpoint: the request it sends, the
 * chunks it reads, each misbehaviour's outcome, and the retries and {@code Retry-After} around opening, and a refusal
 * the fleet waits for.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ChatCompletionsClientTest {

    @Inject
    Vertx vertx;

    @Inject
    ObjectMapper json;

    @Inject
    LlmConfig llmConfig;

    @Inject
    ChatCompletionsClient simulatorClient;

    @Inject
    SimulatorStats simulatorStats;

    @Inject
    SimulatorConfig simulatorConfig;

    @RegisterExtension
    final LocalHttpServer server = new LocalHttpServer(() -> vertx, this::serve);

    @RegisterExtension
    final TestConnectors connectors = new TestConnectors(() -> vertx);

    @Test
    void sendsTheOpenAiRequestAndReadsDeltasFinishReasonAndUsage() throws Exception {
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/ok", config().apiKey("sk-test-secret")).stream("AI trends", "job-1"));

        chunks.awaitCompletion(TIMEOUT);

        assertThat(chunks.getItems()).containsExactly(new ChatChunk("", null, null, null),
                new ChatChunk("Hello", null, null, null), new ChatChunk(null, "thinking", null, null),
                new ChatChunk(" world", null, null, null), new ChatChunk(null, null, "stop", null),
                new ChatChunk(null, null, null, new ChatChunk.Usage(12, 3, 15)));
        Exchange exchange = exchange("/ok");
        assertThat(exchange.path()).isEqualTo("/ok/v1/chat/completions");
        assertThat(exchange.headers()).containsEntry("authorization", "Bearer sk-test-secret")
                .containsEntry("x-request-id", "job-1").containsEntry("accept", "text/event-stream");
        JsonNode body = json.readTree(exchange.body().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        assertThat(body.path("model").asText()).isEqualTo("test-model");
        assertThat(body.path("stream").asBoolean()).isTrue();
        assertThat(body.path("stream_options").path("include_usage").asBoolean()).isTrue();
        assertThat(body.path("temperature").asDouble()).isEqualTo(0.2);
        assertThat(body.path("messages").get(0).path("role").asText()).isEqualTo("system");
        assertThat(body.path("messages").get(1).path("content").asText()).isEqualTo("AI trends");
    }

    @Test
    void reportsTheTokensTheServerSaysTheCallUsedForTheBudgetToSettle() {
        List<LlmExchange> opened = new CopyOnWriteArrayList<>();
        CallGate capturing = new CallGate() {
            @Override
            public Uni<LlmExchange> around(URI url, String body, String jobId, Supplier<Uni<LlmExchange>> call) {
                return call.get().invoke(opened::add);
            }

            @Override
            public LlmException refused(LlmUnavailableException refusal, Function<String, String> headers) {
                return refusal;
            }
        };
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/ok", config(), capturing).stream("AI trends",
                "job-usage"));
        chunks.awaitCompletion(TIMEOUT);

        assertThat(opened).singleElement().satisfies(exchange -> assertThat(exchange.usage().get())
                .as("prompt 12 and completion 3").isEqualTo(15));
    }

    @Test
    void noAuthorizationHeaderWithoutAnApiKey() {
        subscribe(client("/ok", config()).stream("q", "job-2")).awaitCompletion(TIMEOUT);

        assertThat(exchange("/ok").headers()).doesNotContainKey("authorization");
    }

    @Test
    void anErrorObjectInTheStreamFailsTheAttemptAndClosesTheConnection() {
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/error", config()).stream("q", "job-3"));

        chunks.awaitFailure(TIMEOUT);

        assertThat(chunks.getFailure()).isInstanceOf(LlmException.class).hasMessageContaining("error in its stream")
                .hasMessageContaining("model overloaded");
        assertThat(chunks.getItems()).containsExactly(new ChatChunk("partial", null, null, null));
        assertThat(exchange("/error").closed()).succeedsWithin(TIMEOUT);
    }

    @Test
    void aStreamThatEndsWithoutDoneFails() {
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/no-done", config()).stream("q", "job-4"));

        chunks.awaitFailure(TIMEOUT);

        assertThat(chunks.getFailure()).isInstanceOf(LlmException.class).hasMessageContaining("without `data: [DONE]`");
        assertThat(chunks.getItems()).hasSize(2);
    }

    @Test
    void aStreamThatEndsWithoutAFinishReasonFails() {
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/no-finish-reason", config()).stream("q", "job-4b"));

        chunks.awaitFailure(TIMEOUT);

        assertThat(chunks.getFailure()).isInstanceOf(LlmException.class)
                .hasMessageContaining("without a finish reason (`finish_reason`)");
        assertThat(chunks.getItems()).hasSize(2);
    }

    @Test
    void aMalformedChunkFailsTheAttemptAndClosesTheConnection() {
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/malformed", config()).stream("q", "job-5"));

        chunks.awaitFailure(TIMEOUT);

        assertThat(chunks.getFailure()).isInstanceOf(LlmException.class).hasMessageContaining("malformed");
        assertThat(exchange("/malformed").closed()).succeedsWithin(TIMEOUT);
    }

    @Test
    void aChunkWithoutChoicesFails() {
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/no-choices", config()).stream("q", "job-6"));

        chunks.awaitFailure(TIMEOUT);

        assertThat(chunks.getFailure()).isInstanceOf(LlmException.class).hasMessageContaining("without `choices`");
    }

    @Test
    void a429IsRetriedAfterItsRetryAfter() {
        long started = System.nanoTime();
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/busy-once", config()
                .retries(2, Duration.ofMillis(10), Duration.ofSeconds(5))).stream("q", "job-7"));

        chunks.awaitCompletion(TIMEOUT);

        assertThat(server.requests("/busy-once/v1/chat/completions")).isEqualTo(2);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("waited for Retry-After: 1")
                .isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(chunks.getItems()).isNotEmpty();
    }

    @Test
    void aRefusalTheFleetWaitsForIsNotRetriedByTheConnector() {
        List<LlmUnavailableException> refusals = new CopyOnWriteArrayList<>();
        CallGate fleet = new CallGate() {
            @Override
            public Uni<LlmExchange> around(URI url, String body, String jobId, Supplier<Uni<LlmExchange>> call) {
                return call.get();
            }

            @Override
            public LlmException refused(LlmUnavailableException refusal, Function<String, String> headers) {
                refusals.add(refusal);
                return new LlmBusyException(refusal, refusal.retryAfter().orElseThrow(), ProviderLimits.from(headers));
            }
        };
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/busy-once", config().retries(2, Duration.ofMillis(10),
                Duration.ofSeconds(5)), fleet).stream("q", "job-refused"));
        chunks.awaitFailure(TIMEOUT);

        assertThat(chunks.getFailure()).as("the whole fleet waits for the server, and the job with it")
                .isInstanceOfSatisfying(LlmBusyException.class, busy -> assertThat(busy.waitTime())
                        .isEqualTo(Duration.ofSeconds(1)));
        assertThat(refusals).singleElement().satisfies(refusal -> assertThat(refusal.status()).isEqualTo(429));
        assertThat(server.requests("/busy-once/v1/chat/completions")).as("not retried here").isEqualTo(1);
    }

    @Test
    void a503BeforeAnyByteIsRetriedAndA400IsNot() {
        AssertSubscriber<ChatChunk> retried = subscribe(client("/down-twice", config()
                .retries(3, Duration.ofMillis(10), Duration.ofMillis(100))).stream("q", "job-8"));
        retried.awaitCompletion(TIMEOUT);
        assertThat(server.requests("/down-twice/v1/chat/completions")).isEqualTo(3);

        AssertSubscriber<ChatChunk> refused = subscribe(client("/bad-request", config()
                .retries(3, Duration.ofMillis(10), Duration.ofMillis(100))).stream("q", "job-9"));
        refused.awaitFailure(TIMEOUT);
        assertThat(refused.getFailure()).isInstanceOf(LlmException.class).isNotInstanceOf(LlmUnavailableException.class)
                .hasMessageContaining("400");
        assertThat(server.requests("/bad-request/v1/chat/completions")).isEqualTo(1);
    }

    @Test
    void cancellingTheStreamClosesTheConnection() {
        AssertSubscriber<ChatChunk> chunks = subscribe(client("/endless", config()).stream("q", "job-10"));
        chunks.awaitItems(2, TIMEOUT);
        assertThat(exchange("/endless").closed()).isNotDone();

        chunks.cancel();

        assertThat(exchange("/endless").closed()).succeedsWithin(TIMEOUT);
    }

    @Test
    void theSimulatorAnswersWordByWordInOpenAisFormat() {
        String jobId = "chat-" + UUID.randomUUID();
        AssertSubscriber<ChatChunk> chunks = subscribe(simulatorClient.stream("quantum sensors", jobId));

        chunks.awaitCompletion(TIMEOUT);

        String text = chunks.getItems().stream().map(ChatChunk::content).filter(c -> c != null)
                .collect(Collectors.joining());
        assertThat(text).contains("quantum sensors");
        assertThat(chunks.getItems()).filteredOn(c -> c.finishReason() != null).extracting(ChatChunk::finishReason)
                .containsExactly("stop");
        ChatChunk.Usage usage = chunks.getItems().get(chunks.getItems().size() - 1).usage();
        assertThat(usage).isNotNull();
        assertThat(usage.completionTokens()).isEqualTo(text.split(" ").length).isEqualTo(simulatorConfig.answer().words());
        assertThat(text).as("stopped for answer-words: at the end of a sentence").endsWith(".");
        await().atMost(TIMEOUT).until(() -> counts(jobId) != null && counts(jobId).completed() == 1);
    }

    @Test
    void theSimulatorStopsMidSentenceWithLengthAtMaxTokens() {
        AssertSubscriber<ChatChunk> chunks = subscribe(simulatorClient.open(simulatorClient.request("quantum sensors")
                .put("max_tokens", 37), "chat-" + UUID.randomUUID()).onItem().transformToMulti(multi -> multi));

        chunks.awaitCompletion(TIMEOUT);

        String text = chunks.getItems().stream().map(ChatChunk::content).filter(c -> c != null)
                .collect(Collectors.joining());
        assertThat(chunks.getItems()).filteredOn(c -> c.finishReason() != null).extracting(ChatChunk::finishReason)
                .containsExactly("length");
        assertThat(text.split(" ")).hasSize(37);
        assertThat(text).as("cut where it stood").doesNotEndWith(".");
    }

    @Test
    void cancellingTheSimulatorsChatStreamClosesItsConnection() {
        String jobId = "chat-" + UUID.randomUUID();
        AssertSubscriber<ChatChunk> chunks = subscribe(simulatorClient.stream("cancel me", jobId));
        chunks.awaitItems(1, TIMEOUT);

        chunks.cancel();

        await().atMost(TIMEOUT).until(() -> counts(jobId).closedEarly() == 1);
        assertThat(counts(jobId).completed()).isZero();
    }

    private void serve(HttpServerRequest request, Exchange exchange) {
        int attempt = exchange.nth();
        HttpServerResponse response = request.response();
        String route = request.path().replace("/v1/chat/completions", "");
        switch (route) {
            case "/busy-once" -> {
                if (attempt == 1) {
                    response.setStatusCode(429).putHeader("Retry-After", "1").end("{\"error\":{\"message\":\"slow down\"}}");
                    return;
                }
            }
            case "/down-twice" -> {
                if (attempt <= 2) {
                    response.setStatusCode(503).end();
                    return;
                }
            }
            case "/always-500" -> {
                response.setStatusCode(500).end();
                return;
            }
            case "/bad-request" -> {
                response.setStatusCode(400).end("{\"error\":{\"message\":\"unknown model\"}}");
                return;
            }
            default -> {
            }
        }
        response.setChunked(true).putHeader("Content-Type", "text/event-stream");
        switch (route) {
            case "/ok", "/busy-once", "/down-twice" -> response.write(chunk("{\"role\":\"assistant\",\"content\":\"\"}", null))
                    .compose(v -> response.write(chunk("{\"content\":\"Hello\"}", null)))
                    .compose(v -> response.write(chunk("{\"reasoning_content\":\"thinking\"}", null)))
                    .compose(v -> response.write(chunk("{\"content\":\" world\"}", null)))
                    .compose(v -> response.write(chunk("{}", "stop")))
                    .compose(v -> response.write("data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,"
                            + "\"completion_tokens\":3,\"total_tokens\":15}}\n\n"))
                    .compose(v -> response.end("data: [DONE]\n\n"));
            case "/error" -> response.write(chunk("{\"content\":\"partial\"}", null))
                    .compose(v -> response.write("data: {\"error\":{\"message\":\"model overloaded\",\"type\":\"server_error\"}}\n\n"));
            case "/no-done" -> response.write(chunk("{\"content\":\"a\"}", null))
                    .compose(v -> response.write(chunk("{\"content\":\"b\"}", null)))
                    .compose(v -> response.end());
            case "/no-finish-reason" -> response.write(chunk("{\"content\":\"a\"}", null))
                    .compose(v -> response.write(chunk("{\"content\":\"b\"}", null)))
                    .compose(v -> response.end("data: [DONE]\n\n"));
            case "/malformed" -> response.write(chunk("{\"content\":\"a\"}", null))
                    .compose(v -> response.write("data: {\"choices\": [\n\n"));
            case "/no-choices" -> response.write("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\"}\n\n");
            case "/endless" -> {
                long timer = vertx.setPeriodic(50, id -> response.write(chunk("{\"content\":\"more \"}", null)));
                exchange.closed().whenComplete((v, f) -> vertx.cancelTimer(timer));
            }
            default -> response.setStatusCode(404).end();
        }
    }

    private static String chunk(String delta, String finishReason) {
        return "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
                + delta + ",\"finish_reason\":" + (finishReason == null ? "null" : "\"" + finishReason + "\"") + "}]}\n\n";
    }

    private Exchange exchange(String route) {
        return server.exchange(route + "/v1/chat/completions");
    }

    private TestLlmConfig config() {
        return new TestLlmConfig(llmConfig).protocol(LlmConfig.Protocol.OPENAI).idleTimeout(Duration.ofSeconds(2));
    }

    private ChatCompletionsClient client(String route, TestLlmConfig config) {
        return client(route, config, CallGate.NONE);
    }

    /** @return a client of the test server's {@code route}, whose connector tells {@code gate} of its calls */
    private ChatCompletionsClient client(String route, TestLlmConfig config, CallGate gate) {
        config.url(server.url(route));
        return new ChatCompletionsClient(connectors.open(config, gate), config, json, LocalSimulator.OFF);
    }

    private SimulatorStats.Counts counts(String jobId) {
        return simulatorStats.snapshot().jobs().get(jobId);
    }

    private static AssertSubscriber<ChatChunk> subscribe(Multi<ChatChunk> multi) {
        return multi.subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
    }
}
