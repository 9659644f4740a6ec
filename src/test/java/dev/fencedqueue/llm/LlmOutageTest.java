package dev.fencedqueue.llm;

import static dev.fencedqueue.testing.Timeouts.JOB_END;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.research.OpenAiProtocolProfile;
import dev.fencedqueue.testing.FanOuts;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A provider's bad minutes fail no job ({@link LlmBudgetGate}, {@code fq.llm.outage.timeout} at its default of 15
 * minutes): through an outage of the simulator of each kind ({@code 503}s, {@code 500}s, connections closed without a
 * response) a research job's call opens the fleet's circuit and its job waits in the queue without counting an
 * attempt, and once the outage ends a probe finds the server back and the job completes; a {@code 429} with
 * {@code retry-after} pauses the fleet for that long, and the attempt that met it is not counted either.
 */
@QuarkusTest
@TestProfile(LlmOutageTest.Patient.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class LlmOutageTest extends ResearchTestSupport {

    /** The OpenAI protocol to the simulator, one quick retry of each opening, probes every 300 ms to 1 s. */
    public static class Patient implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(new OpenAiProtocolProfile().getConfigOverrides());
            config.putAll(Map.of("fq.llm.retry.max-retries", "1", "fq.llm.retry.delay", "50ms",
                    "fq.llm.outage.probe-delay", "300ms", "fq.llm.outage.probe-max-delay", "1s",
                    "fq.research.attempts.max", "2", "fq.metrics.queue-refresh", "200ms"));
            return config;
        }
    }

    @Inject
    MeterRegistry meters;

    @AfterEach
    void providerBackToNormal() {
        given().delete("/simulator/provider/outage").then().statusCode(200);
        given().contentType(ContentType.JSON).body(Map.of()).put("/simulator/provider").then().statusCode(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"unavailable", "error", "reset"})
    void aJobWaitsOutAnOutageWithoutCountingAnAttemptThenCompletes(String kind) {
        startResearchWorker("patient-" + kind);
        double waitedBefore = waited("down") + waited("open");
        long failedBefore = provider().getLong("failed");
        given().contentType(ContentType.JSON).body(Map.of("seconds", 600, "kind", kind))
                .put("/simulator/provider/outage").then().statusCode(200);

        String jobId = startJob("through an outage of kind " + kind);

        await("the job met the outage").atMost(TIMEOUT).until(() -> provider().getLong("failed") > failedBefore);
        JsonPath budget = await("the fleet waits for the server").atMost(TIMEOUT).until(LlmOutageTest::budgets,
                read -> !"closed".equals(read.getString("[0].circuit.state")));
        assertThat(budget.getLong("[0].unavailableSince")).isPositive();
        await("fq_llm_circuit_open").atMost(TIMEOUT).until(() -> circuitGauge() == 1.0);
        assertThat(status(jobId).getString("state")).as("waiting, not failed").isIn("delayed", "waiting", "active");
        given().delete("/simulator/provider/outage").then().statusCode(200);

        await("completed once the outage ended").atMost(JOB_END)
                .until(() -> "completed".equals(status(jobId).getString("state")));
        JsonPath after = budgets();
        assertThat(after.getString("[0].circuit.state")).as("closed by the first success").isEqualTo("closed");
        assertThat(after.getString("[0].unavailableSince")).isNull();
        assertThat(after.getString("[0].endpoint")).endsWith("/simulator/v1/chat/completions");
        assertThat(status(jobId).getInt("attemptsMade")).as("waiting for the server counted no attempt").isEqualTo(1);
        assertThat(waited("down") + waited("open")).as("fq_llm_rate_limited_total{reason=down|open}")
                .isGreaterThan(waitedBefore);
    }

    @Test
    void aRefusalWithATimeToWaitPausesTheFleetAndCountsNoAttempt() {
        // The provider's tokens for the next few seconds, spent by another client: our next call gets a 429 with a
        // retry-after of a few seconds, which our budget could not have foreseen.
        given().contentType(ContentType.JSON).body(Map.of("tokensPerMinute", 2_000)).put("/simulator/provider").then()
                .statusCode(200);
        given().contentType(ContentType.JSON).body(Map.of("model", "another-client", "stream", true, "max_tokens",
                1_990, "messages", List.of(Map.of("role", "user", "content", "spend"))))
                .post("/simulator/v1/chat/completions").then().statusCode(200);
        startResearchWorker("paused");
        double pausedBefore = waited("server");

        String jobId = startJob("a provider that says wait");

        await("completed once the provider's tokens refilled").atMost(JOB_END)
                .until(() -> "completed".equals(status(jobId).getString("state")));
        assertThat(provider().getLong("rateLimited")).as("the provider refused a call").isPositive();
        assertThat(status(jobId).getInt("attemptsMade")).as("the refused attempt was not counted").isEqualTo(1);
        assertThat(waited("server")).as("fq_llm_rate_limited_total{reason=server}").isGreaterThan(pausedBefore);
    }

    private double circuitGauge() {
        io.micrometer.core.instrument.Gauge gauge = meters.find("fq.llm.circuit.open").gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    private static JsonPath budgets() {
        return FanOuts.admin().get("/admin/llm/budgets").then().statusCode(200).extract().jsonPath();
    }

    private double waited(String reason) {
        return meters.get("fq.llm.rate.limited").tag("reason", reason).counter().count();
    }

    private static JsonPath provider() {
        return given().get("/simulator/provider").then().statusCode(200).extract().jsonPath();
    }
}
