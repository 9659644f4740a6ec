package dev.fencedqueue.llm;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.simulator.SimulatorStats;
import dev.fencedqueue.testing.LocalHttpServer;
import dev.fencedqueue.testing.LocalHttpServer.Exchange;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.helpers.test.AssertSubscriber;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The streaming LLM client against a real HTTP server ({@link LocalHttpServer}, one path per behaviour) and against
 * the built-in simulator. Clients for the test server are built directly, with an idle timeout no stall of the
 * machine reaches, but for the test of the idle timeout itself.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ResearchProtocolClientTest {

    /** The idle timeout of the test of silence: short, as the test waits for it. */
    private static final Duration IDLE_TIMEOUT = Duration.ofMillis(400);

    @Inject
    Vertx vertx;

    @Inject
    ObjectMapper json;

    @Inject
    ResearchProtocolClient simulatorClient;

    @Inject
    LlmConfig llmConfig;

    @Inject
    SimulatorStats simulatorStats;

    @RegisterExtension
    final LocalHttpServer server = new LocalHttpServer(() -> vertx, this::serve);

    @RegisterExtension
    final TestConnectors connectors = new TestConnectors(() -> vertx);

    @Test
    void wellFormedStreamYieldsProgressThenSummary() {
        AssertSubscriber<LlmMessage> messages = subscribe(client("/stream").research("AI trends", "job-1"));

        messages.awaitCompletion(TIMEOUT);

        assertThat(messages.getItems()).containsExactly(new LlmMessage.Progress(30, "reading"),
                new LlmMessage.Progress(60, "two\nlines"), new LlmMessage.Summary("all done"));
        assertThat(server.exchange("/stream").body()).succeedsWithin(TIMEOUT)
                .isEqualTo("{\"query\":\"AI trends\",\"jobId\":\"job-1\"}");
    }

    /**
     * A short response can arrive whole before the client pauses it. Subscribed from a thread outside Vert.x (as
     * here, or a fault-tolerance retry), about 1 call in 70 lost its body before the fix; 500 calls catch that.
     */
    @Test
    void shortStreamIsReadWholeWhenSubscribedOffTheEventLoop() {
        ResearchProtocolClient client = client("/stream");
        for (int call = 0; call < 500; call++) {
            AssertSubscriber<LlmMessage> messages = subscribe(client.research("q", "job-" + call));

            awaitCompletion(messages, call);

            assertThat(messages.getItems()).as("call %d", call).hasSize(3).last().isEqualTo(new LlmMessage.Summary("all done"));
        }
    }

    /**
     * Waits for one call of the loop to complete; when it does not, says how far it got on either side, to tell a lost
     * body (the server ended its response, the client saw part of it or none) from a request that never arrived.
     */
    private void awaitCompletion(AssertSubscriber<LlmMessage> messages, int call) {
        try {
            messages.awaitCompletion(TIMEOUT);
        } catch (AssertionError e) {
            List<Exchange> exchanges = server.exchanges();
            Exchange last = exchanges.isEmpty() ? null : exchanges.get(exchanges.size() - 1);
            throw new AssertionError("call " + call + ": " + e.getMessage() + "; the client received "
                    + messages.getItems() + (messages.getFailure() == null ? "" : " and failed: " + messages.getFailure())
                    + "; the server received " + exchanges.size() + " requests, the last one's body "
                    + (last == null ? "-" : last.body().getNow("(not yet read)")) + ", its response "
                    + (last == null ? "-" : last.ended().isDone() ? "ended" : "not ended"), e);
        }
    }

    @Test
    void nonSuccessStatusFailsWithLlmException() {
        AssertSubscriber<LlmMessage> messages = subscribe(client("/unavailable").research("q", "job-2"));

        messages.awaitFailure(TIMEOUT);

        assertThat(messages.getFailure()).isInstanceOf(LlmException.class).hasMessageContaining("503");
        assertThat(messages.getItems()).isEmpty();
    }

    @Test
    void malformedDataLineFailsTheStreamAndClosesTheConnection() {
        AssertSubscriber<LlmMessage> messages = subscribe(client("/malformed").research("q", "job-3"));

        messages.awaitFailure(TIMEOUT);

        assertThat(messages.getFailure()).isInstanceOf(LlmException.class).hasMessageContaining("malformed");
        assertThat(messages.getItems()).containsExactly(new LlmMessage.Progress(10, "fine so far"));
        assertThat(server.exchange("/malformed").closed()).succeedsWithin(TIMEOUT);
    }

    @Test
    void aStreamThatEndsWithoutASummaryFailsSayingSo() {
        AssertSubscriber<LlmMessage> messages = subscribe(client("/no-summary").research("q", "job-summary"));

        messages.awaitFailure(TIMEOUT);

        assertThat(messages.getFailure()).isInstanceOf(LlmException.class)
                .hasMessageContaining("ended its stream without a summary");
        assertThat(messages.getItems()).containsExactly(new LlmMessage.Progress(40, "halfway"));
    }

    /**
     * A stream whose connection closes while it waits, paused, for its reader (a run that first writes its
     * {@code resume} event) fails when read, instead of waiting for an end that will never come.
     */
    @Test
    void aStreamThatBrokeBeforeItWasReadFailsWhenRead() {
        LlmConfig config = new TestLlmConfig(llmConfig).url(server.url("/closed")).idleTimeout(TIMEOUT);
        LlmExchange exchange = connectors.open(config).open(URI.create(server.url("/closed")), "{}", Map.of())
                .await().atMost(TIMEOUT);
        // The connection closes while nothing reads the response: the exchange keeps the failure for its reader (a
        // close handler registered now could come after the close, and never run).
        await("the stream broke before it was read").atMost(TIMEOUT)
                .until(() -> exchange.brokenBeforeRead().get() != null);

        AssertSubscriber<String> events = SseEvents.of(exchange, "the test server").subscribe()
                .withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));

        events.awaitFailure(TIMEOUT);
        assertThat(events.getFailure()).isInstanceOf(LlmException.class).hasMessageContaining("broke");
    }

    @Test
    void messageThatIsNeitherProgressNorSummaryFailsTheStream() {
        AssertSubscriber<LlmMessage> messages = subscribe(client("/unexpected").research("q", "job-4"));

        messages.awaitFailure(TIMEOUT);

        assertThat(messages.getFailure()).isInstanceOf(LlmException.class).hasMessageContaining("malformed LLM message");
        assertThat(server.exchange("/unexpected").closed()).succeedsWithin(TIMEOUT);
    }

    @Test
    void silenceLongerThanTheIdleTimeoutFailsTheStream() {
        long subscribedAt = System.nanoTime();
        ResearchProtocolClient client = clientFor(server.url("/silent"), IDLE_TIMEOUT);
        AssertSubscriber<LlmMessage> messages = subscribe(client.research("q", "job-5"));

        messages.awaitFailure(TIMEOUT);

        assertThat(Duration.ofNanos(System.nanoTime() - subscribedAt)).isGreaterThanOrEqualTo(IDLE_TIMEOUT);
        assertThat(messages.getFailure()).isInstanceOf(LlmException.class);
        assertThat(messages.getItems()).containsExactly(new LlmMessage.Progress(5, "thinking"));
        assertThat(server.exchange("/silent").closed()).succeedsWithin(TIMEOUT);
    }

    @Test
    void cancellingTheStreamClosesTheHttpConnection() {
        AssertSubscriber<LlmMessage> messages = subscribe(client("/endless").research("q", "job-6"));
        messages.awaitItems(2, TIMEOUT);
        Exchange exchange = server.exchange("/endless");
        assertThat(exchange.closed()).isNotDone();

        messages.cancel();

        assertThat(exchange.closed()).succeedsWithin(TIMEOUT);
    }

    @Test
    void refusedConnectionFails() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        ResearchProtocolClient refused = clientFor("http://127.0.0.1:" + closedPort + "/research", TIMEOUT);
        AssertSubscriber<LlmMessage> messages = subscribe(refused.research("q", "job-7"));

        messages.awaitFailure(TIMEOUT);

        assertThat(messages.getFailure()).isInstanceOf(ConnectException.class);
    }

    @Test
    void simulatorStreamsProgressThenASummaryOfTheQuery() {
        String jobId = "llm-" + UUID.randomUUID();
        AssertSubscriber<LlmMessage> messages = subscribe(simulatorClient.research("quantum sensors", jobId));

        messages.awaitCompletion(TIMEOUT);

        List<LlmMessage> items = messages.getItems();
        assertThat(items).hasSizeGreaterThan(1);
        assertThat(items.subList(0, items.size() - 1)).allSatisfy(m -> assertThat(m).isInstanceOf(LlmMessage.Progress.class));
        assertThat(items.subList(0, items.size() - 1)).extracting(m -> ((LlmMessage.Progress) m).percent()).isSorted();
        assertThat(items.get(items.size() - 1)).isInstanceOfSatisfying(LlmMessage.Summary.class,
                summary -> assertThat(summary.summary()).contains("quantum sensors"));
        await().atMost(TIMEOUT).until(() -> counts(jobId) != null && counts(jobId).completed() == 1);
        assertThat(counts(jobId).closedEarly()).isZero();
    }

    @Test
    void cancellingTheSimulatorStreamClosesItsConnection() {
        String jobId = "llm-" + UUID.randomUUID();
        AssertSubscriber<LlmMessage> messages = subscribe(simulatorClient.research("cancel me", jobId));
        messages.awaitItems(1, TIMEOUT);

        messages.cancel();

        await().atMost(TIMEOUT).until(() -> counts(jobId).closedEarly() == 1);
        assertThat(counts(jobId).completed()).isZero();
    }

    private void serve(HttpServerRequest request, Exchange exchange) {
        HttpServerResponse response = request.response();
        if (request.path().equals("/unavailable")) {
            response.setStatusCode(503).end("{\"error\":\"overloaded\"}");
            return;
        }
        response.setChunked(true).putHeader("Content-Type", "text/event-stream");
        switch (request.path()) {
            case "/stream" -> response.write(": a comment\n\nevent: progress\nid: 1\ndata: {\"percent\":30,\"message\":\"reading\"}\n\n")
                    .compose(v -> response.write("data: {\"percent\":60,\ndata: \"message\":\"two\\nlines\"}\r\n\r\n"))
                    .compose(v -> response.end("data: {\"status\":\"completed\",\"summary\":\"all done\"}\n\n"));
            case "/malformed" -> response.write("data: {\"percent\":10,\"message\":\"fine so far\"}\n\n")
                    .compose(v -> response.write("data: {not json\n\n"));
            case "/unexpected" -> response.write("data: {\"status\":\"thinking\"}\n\n");
            case "/closed" -> response.write("data: {\"percent\":40,\"message\":\"halfway\"}\n\n")
                    .onComplete(written -> request.connection().close());
            case "/no-summary" -> response.end("data: {\"percent\":40,\"message\":\"halfway\"}\n\n");
            case "/silent" -> response.write("data: {\"percent\":5,\"message\":\"thinking\"}\n\n");
            case "/endless" -> {
                long timer = vertx.setPeriodic(50, id -> response.write("data: {\"percent\":1,\"message\":\"more\"}\n\n"));
                exchange.closed().whenComplete((v, f) -> vertx.cancelTimer(timer));
            }
            default -> response.setStatusCode(404).end();
        }
    }

    private ResearchProtocolClient client(String path) {
        return clientFor(server.url(path), TIMEOUT);
    }

    private ResearchProtocolClient clientFor(String url, Duration idleTimeout) {
        LlmConfig config = new TestLlmConfig(llmConfig).url(url).idleTimeout(idleTimeout);
        return new ResearchProtocolClient(connectors.open(config), config, json, LocalSimulator.OFF);
    }

    private SimulatorStats.Counts counts(String jobId) {
        return simulatorStats.snapshot().jobs().get(jobId);
    }

    private static AssertSubscriber<LlmMessage> subscribe(Multi<LlmMessage> multi) {
        return multi.subscribe().withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
    }
}
