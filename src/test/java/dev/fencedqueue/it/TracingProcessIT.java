package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.CuttableProxy;
import dev.fencedqueue.testing.OtlpReceiver;
import dev.fencedqueue.testing.OtlpReceiver.ReceivedSpan;
import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One trace per job across processes, exported over OTLP/HTTP to a real receiver: the packaged application (the jar,
 * or the native executable in CI's native stage) runs a research job in process A, whose link to Redis stalls in the
 * middle of the answer (a proxy stops forwarding); process B takes the job over and continues it; when the link moves
 * again, A is a zombie and Redis refuses the writes it had sent. The spans both processes export are one trace, the
 * request's: two attempt spans with their fencing tokens and workers, the zombie's refused writes as its events, and
 * under each the LLM call's span with the tokens the job's status counts for that attempt.
 */
class TracingProcessIT {

    private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
    /** Words of the answer (one every 10 ms): A's link stalls once it has 300. */
    private static final int WORDS = 800;

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(ProcessFleet.SHORT_LOCKS);

    private final OtlpReceiver receiver = OtlpReceiver.start();
    private final Vertx vertx = Vertx.vertx();
    private CuttableProxy link;

    @BeforeEach
    void link() {
        link = CuttableProxy.start(vertx, fleet.redisPort());
    }

    @AfterEach
    void stop() {
        receiver.close();
        link.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void aJobTakenOverByAnotherProcessIsOneTraceWithTwoAttempts() {
        ServiceProcess llm = fleet.start("llm", Map.of("fq.worker.enabled", "false", "fq.simulator.answer.words",
                Integer.toString(WORDS), "fq.simulator.answer.token-interval", "10ms"), Map.of());
        Map<String, String> config = new HashMap<>(Map.of("fq.llm.protocol", "openai", "fq.llm.url",
                llm.url("/simulator"), "fq.llm.model", "fenced-queue-simulator", "fq.llm.stream.delta-interval", "100ms",
                "quarkus.otel.sdk.disabled", "false",
                "quarkus.otel.exporter.otlp.traces.protocol", "http/protobuf",
                "quarkus.otel.exporter.otlp.traces.endpoint", receiver.endpoint(),
                "quarkus.otel.bsp.schedule.delay", "200ms"));
        // A reaches Redis through a link the test stalls; its writes on their way then wait there, and Redis answers
        // them (refuses them) once the link moves again, well within its command timeout.
        Map<String, String> configOfA = new HashMap<>(config);
        configOfA.put("quarkus.redis.hosts", "redis://127.0.0.1:" + link.port());
        configOfA.put("fq.redis.command-timeout", "60s");
        ServiceProcess a = fleet.start("proc-A", configOfA, Map.of());
        // B starts beside A, then sleeps (SIGSTOP) until A's link stalls: A runs the job, B takes it over.
        ServiceProcess b = fleet.start("proc-B", config, Map.of());
        fleet.awaitReady(llm, a, b);
        b.freeze();
        String jobId = a.request().header("traceparent", "00-" + TRACE_ID + "-b7ad6b7169203331-01")
                .contentType(ContentType.JSON).body(Map.of("query", "traced across processes"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        await("A is in the middle of the answer").atMost(Duration.ofSeconds(30))
                .until(() -> status(llm, jobId).getObject("progress.completionTokens", Long.class),
                        tokens -> tokens != null && tokens >= 300);
        long tokenOfA = status(llm, jobId).getLong("fencingToken");

        link.freeze(true);
        b.thaw();
        await("B takes the job over while A's link is stalled").atMost(Duration.ofSeconds(30))
                .until(() -> status(llm, jobId).getLong("fencingToken"), token -> token > tokenOfA);
        link.freeze(false);
        await("B's run completes the job").atMost(Duration.ofSeconds(90))
                .until(() -> status(llm, jobId).getString("state"), state -> "completed".equals(state)
                        || "failed".equals(state));
        assertThat(status(llm, jobId).getString("state")).isEqualTo("completed");
        JsonPath status = await("A's tokens are counted").atMost(Duration.ofSeconds(30)).until(() -> status(llm, jobId),
                read -> read.getObject("tokens.zombie.attempts", Integer.class) != null);
        assertThat(status.getString("traceId")).isEqualTo(TRACE_ID);
        long tokenOfB = status.getLong("fencingToken");

        List<ReceivedSpan> trace = await("both processes exported their attempts and LLM calls")
                .atMost(Duration.ofSeconds(30)).until(() -> receiver.trace(TRACE_ID), spans -> spans.stream()
                        .filter(span -> span.name().equals("process deep-research")).count() == 2
                        && spans.stream().filter(span -> span.name().startsWith("chat ")).count() == 2);

        ReceivedSpan send = trace.stream().filter(span -> span.name().equals("send deep-research")).findFirst()
                .orElseThrow();
        assertThat(send.attributes()).containsEntry("messaging.message.id", jobId)
                .containsEntry("messaging.operation.type", "send");
        List<ReceivedSpan> attempts = trace.stream().filter(span -> span.name().equals("process deep-research")).toList();
        assertThat(attempts).allSatisfy(attempt -> {
            assertThat(attempt.kind()).isEqualTo("SPAN_KIND_CONSUMER");
            assertThat(attempt.parentSpanId()).as("a child of the add").isEqualTo(send.spanId());
        });
        ReceivedSpan zombie = attempts.stream().filter(span -> span.longAttribute("fq.job.fencing_token") == tokenOfA)
                .findFirst().orElseThrow();
        ReceivedSpan takeover = attempts.stream().filter(span -> span.longAttribute("fq.job.fencing_token") == tokenOfB)
                .findFirst().orElseThrow();
        assertThat(zombie.attributes()).containsEntry("fq.worker.id", "proc-A").containsEntry("fq.job.outcome", "zombie");
        assertThat(zombie.events()).as("the zombie's refused writes").contains("fq.write.refused");
        assertThat(takeover.attributes()).containsEntry("fq.worker.id", "proc-B").containsEntry("fq.job.outcome", "result")
                .containsEntry("fq.job.resumed", true);

        assertThat(llmCall(trace, zombie).longAttribute("gen_ai.usage.output_tokens"))
                .as("A's tokens, as the status counts them").isEqualTo(status.getLong("tokens.zombie.completionTokens"));
        assertThat(llmCall(trace, takeover).longAttribute("gen_ai.usage.output_tokens"))
                .as("B's tokens, as the status counts them").isEqualTo(status.getLong("tokens.result.completionTokens"));
    }

    private static ReceivedSpan llmCall(List<ReceivedSpan> trace, ReceivedSpan attempt) {
        List<ReceivedSpan> calls = trace.stream().filter(span -> span.parentSpanId().equals(attempt.spanId())
                && span.kind().equals("SPAN_KIND_CLIENT")).toList();
        assertThat(calls).as("the LLM call of the attempt of %s", attempt.attributes().get("fq.worker.id")).hasSize(1);
        assertThat(calls.get(0).attributes()).containsEntry("gen_ai.operation.name", "chat")
                .containsEntry("gen_ai.request.model", "fenced-queue-simulator");
        return calls.get(0);
    }

    private static JsonPath status(ServiceProcess any, String jobId) {
        return any.request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }
}
