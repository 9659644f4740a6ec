package dev.fencedqueue.llm;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.budget.BudgetKey;
import dev.fencedqueue.budget.BudgetLimits;
import dev.fencedqueue.budget.LlmBudget;
import dev.fencedqueue.budget.Reservation;
import dev.fencedqueue.research.OpenAiProtocolProfile;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Research calls spend the LLM budget the fleet shares ({@code fq.llm.budget.*}, {@link LlmBudgetGate}): the provider's
 * rate-limit headers bring a budget set higher down to the provider's own, and a job whose call the budget cannot
 * admit yet (the fleet paused, as a provider's {@code 429} makes it) waits in the queue without its worker slot and
 * without counting an attempt, then completes.
 */
@QuarkusTest
@TestProfile(LlmBudgetGateTest.Budgeted.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class LlmBudgetGateTest extends ResearchTestSupport {

    private static final BudgetLimits LIMITS = new BudgetLimits(1_000, 0, 0);

    /** The OpenAI protocol to the simulator, and a budget of 1,000 requests a minute. */
    public static class Budgeted implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(new OpenAiProtocolProfile().getConfigOverrides());
            config.put("fq.llm.budget.requests-per-minute", "1000");
            return config;
        }
    }

    @Inject
    LlmBudgetGate gate;

    @Inject
    LlmBudget budget;

    @Inject
    MeterRegistry meters;

    @AfterEach
    void providerWithoutLimits() {
        given().contentType(ContentType.JSON).body(Map.of()).put("/simulator/provider").then().statusCode(200);
    }

    @Test
    void theProvidersHeadersBringTheBudgetDownToItsOwnLimit() {
        given().contentType(ContentType.JSON).body(Map.of("requestsPerMinute", 500)).put("/simulator/provider").then()
                .statusCode(200);
        startResearchWorker("budgeted");
        String jobId = startJob("how do budgets converge");
        await().atMost(TIMEOUT).until(() -> "completed".equals(status(jobId).getString("state")));

        BudgetKey key = gate.budgets().iterator().next();
        String lease = UUID.randomUUID().toString();
        Reservation next = budget.reserve(key, LIMITS, 0, lease, Duration.ofMinutes(1), Duration.ofMinutes(15), null)
                .await().atMost(TIMEOUT);
        assertThat(next.requestsLeft()).as("within the server's 500 a minute, not our 1,000").isBetween(0L, 499L);
        budget.settle(key, LIMITS, lease, 0).await().atMost(TIMEOUT);
        assertThat(meters.get("fq.llm.budget.remaining").tag("kind", "requests").gauge().value())
                .as("fq_llm_budget_remaining{kind=requests}").isBetween(0.0, 500.0);
    }

    @Test
    void aJobWhoseCallTheBudgetCannotAdmitWaitsInTheQueueThenCompletes() {
        startResearchWorker("budgeted");
        String first = startJob("the first call learns the budget's key");
        await().atMost(TIMEOUT).until(() -> "completed".equals(status(first).getString("state")));
        BudgetKey key = gate.budgets().iterator().next();
        double limitedBefore = rateLimitedAttempts();

        budget.pause(key, Duration.ofMillis(1_500)).await().atMost(TIMEOUT);
        String jobId = startJob("a paused fleet");

        await().atMost(TIMEOUT).until(() -> "completed".equals(status(jobId).getString("state")));
        JsonPath done = status(jobId);
        assertThat(done.getInt("attemptsMade")).as("the wait counted no attempt").isEqualTo(1);
        assertThat(done.getLong("processedOn") - done.getLong("timestamp")).as("it ran once the pause ended")
                .isGreaterThanOrEqualTo(1_000);
        assertThat(rateLimitedAttempts() - limitedBefore).as("handed back, without its slot").isGreaterThanOrEqualTo(1);
        assertThat(meters.get("fq.llm.rate.limited").tag("reason", "paused").counter().count())
                .as("fq_llm_rate_limited_total{reason=paused}").isGreaterThanOrEqualTo(1);
        assertThat(meters.get("fq.llm.budget.wait").timer().totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
                .as("fq_llm_budget_wait_seconds: about the pause").isGreaterThanOrEqualTo(500);
    }

    private double rateLimitedAttempts() {
        return meters.find("fq.job.processing").tag("outcome", "rate-limited").timers().stream()
                .mapToDouble(Timer::count).sum();
    }
}
