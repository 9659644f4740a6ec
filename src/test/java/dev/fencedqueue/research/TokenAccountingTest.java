package dev.fencedqueue.research;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static dev.fencedqueue.worker.WorkerTestAccess.thaw;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.llm.LlmPrices;
import dev.fencedqueue.simulator.SimulatorStats;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SimulatorStreams;
import dev.fencedqueue.worker.Worker;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Tokens are money: a run cut off by a takeover in the middle of an OpenAI stream has its tokens counted under
 * {@code zombie} (in the job's status and in Prometheus), those it generated after its last commit as lost, and its
 * upstream stream closed; the run that continued its answer is counted under {@code result} for the rest only, and
 * what it did not generate again as saved. With prices, what each of these cost is beside them ({@code cost.zombie},
 * {@code cost.result}, {@code cost.saved}).
 */
@QuarkusTest
@RuntimeProfile(OpenAiZombieProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class TokenAccountingTest extends ResearchTestSupport {

    @Inject
    MeterRegistry registry;

    @Test
    void aZombiesTokensAreCountedUnderZombieAndWhatTheTakeoverSavedUnderSaved() throws Exception {
        settings.adjust("fq.llm.price.input", "3");
        settings.adjust("fq.llm.price.output", "15");
        double zombieBefore = tokens("zombie", "completion");
        Worker workerA = worker(research, "worker-A");
        Worker workerB = worker(research, "worker-B");
        workerA.start();
        String jobId = startJob("token accounting");
        // No progress yet on the first looks: the answer has not started streaming.
        await().atMost(TIMEOUT).until(() -> status(jobId).getObject("progress.completionTokens", Integer.class),
                tokens -> tokens != null && tokens >= 20);

        long runOfA = status(jobId).getLong("fencingToken");
        freeze(workerA); // as if paused by GC: no renewal, so B takes the job over
        workerB.start();
        await().atMost(Duration.ofSeconds(15)).until(() -> status(jobId).getLong("fencingToken") > runOfA);
        thaw(workerA);

        await("the zombie's stream is closed").atMost(TIMEOUT)
                .until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);
        await("its tokens are counted").atMost(TIMEOUT)
                .until(() -> status(jobId).getMap("tokens") != null && status(jobId).getMap("tokens.zombie") != null);
        await("B finishes").atMost(Duration.ofSeconds(30)).until(() -> "completed".equals(status(jobId).getString("state")));

        JsonPath status = status(jobId);
        assertThat(status.getInt("tokens.zombie.attempts")).isEqualTo(1);
        long zombie = status.getLong("tokens.zombie.completionTokens");
        assertThat(zombie).as("A had streamed at least 20 words").isGreaterThanOrEqualTo(20).isLessThan(400);
        long saved = status.getLong("tokens.saved.completionTokens");
        Long lost = status.getObject("tokens.zombie.lostCompletionTokens", Long.class);
        assertThat(saved + (lost == null ? 0 : lost)).as("what A committed (B continued it) and what it lost")
                .isEqualTo(zombie);
        assertThat(status.getInt("tokens.result.attempts")).isEqualTo(1);
        assertThat(status.getLong("tokens.result.completionTokens")).as("B generated only the rest").isEqualTo(400 - saved);
        assertThat(status.getLong("tokens.result.promptTokens")).isPositive();
        assertThat(status.getLong("result.usage.completionTokens")).isEqualTo(400);
        assertThat(tokens("zombie", "completion") - zombieBefore).as("fq_llm_tokens_total{outcome=zombie}")
                .isEqualTo(status.getLong("tokens.zombie.completionTokens"));
        JsonNode cost = new ObjectMapper().readTree(given().get("/research/status/" + jobId).asString()).path("cost");
        assertThat(cost.path("zombie").asDouble()).as("the zombie's tokens at the prices: %s", cost).isEqualTo(
                LlmPrices.units(3 * status.getLong("tokens.zombie.promptTokens") + 15 * zombie));
        assertThat(cost.path("result").asDouble()).isEqualTo(LlmPrices.units(3 * status.getLong("tokens.result.promptTokens")
                + 15 * status.getLong("tokens.result.completionTokens")));
        assertThat(cost.path("saved").asDouble()).as("what was not generated again, at the output price")
                .isEqualTo(LlmPrices.units(15 * saved)).isPositive();
        assertThat(SimulatorStreams.of(jobId)).isEqualTo(new SimulatorStats.Counts(2, 1, 1));
        given().get("/q/metrics").then().statusCode(200).body(org.hamcrest.Matchers
                .containsString("fq_llm_tokens_total{kind=\"completion\",outcome=\"zombie\",queue=\"deep-research\"}"));
    }

    private double tokens(String outcome, String kind) {
        var counter = registry.find("fq.llm.tokens").tag("outcome", outcome).tag("kind", kind).counter();
        return counter == null ? 0 : counter.count();
    }
}
