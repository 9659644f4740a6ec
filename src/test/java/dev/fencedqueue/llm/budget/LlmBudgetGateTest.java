package dev.fencedqueue.llm.budget;

import static dev.fencedqueue.testing.Timeouts.JOB_END;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.research.OpenAiProtocolProfile;
import dev.fencedqueue.testing.QueueInspector;
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
import io.smallrye.mutiny.Multi;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Research calls spend the LLM budget the fleet shares ({@code fq.llm.budget.*}, {@link LlmBudgetGate}): the provider's
 * rate-limit headers bring a budget set higher down to the provider's own, and a job whose call the budget cannot
 * admit yet (the fleet paused, as a provider's {@code 429} makes it) waits in the queue without its worker slot and
 * without counting an attempt, then completes. Jobs added as users send them, whose answers use fewer tokens than the
 * {@code max_tokens} the provider counts, meet no {@code 429} once the first call's headers taught the budget the
 * provider's token limit: each call is settled with what the provider counted, not with the shorter answer.
 */
@QuarkusTest
@TestProfile(LlmBudgetGateTest.Budgeted.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class LlmBudgetGateTest extends ResearchTestSupport {

    private static final BudgetLimits LIMITS = new BudgetLimits(1_000, 0, 0);
    /**
     * The provider's tokens a minute in {@link #jobsAddedAsTheyComeMeetNoRefusalOnceTheProvidersHeadersWereRead}: about
     * ten calls at once (each counts its prompt and its max_tokens, 200), then one every 5 s.
     */
    private static final int PROVIDER_TOKENS = 3_000;
    /** The jobs that come one after the other there: a few more than the provider admits at once. */
    private static final int ARRIVING_JOBS = 16;

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

    @Inject
    QueueInspector inspector;

    @Inject
    RedisKeysConfig redisKeys;

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

    @Test
    void jobsAddedAsTheyComeMeetNoRefusalOnceTheProvidersHeadersWereRead() {
        // Each request sets max_tokens 200, which the provider counts and does not give back; the answers use 10.
        settings.adjust("fq.llm.request.max-tokens", "200");
        settings.adjust("fq.simulator.answer.words", "10");
        given().contentType(ContentType.JSON).body(Map.of("tokensPerMinute", PROVIDER_TOKENS)).put("/simulator/provider")
                .then().statusCode(200);
        JsonPath before = provider();
        double heldBefore = rateLimited("tokens");
        double pausedBefore = rateLimited("server");
        startResearchWorker("as-they-come");

        // Added as users send them, one every 75 ms (not to a paused queue): each call starts as soon as its job comes,
        // the first one's headers teach the budget the provider's limit, and the calls beyond what the provider
        // admits at once wait in the queue for the budget.
        List<String> jobs = Multi.createFrom().ticks().every(Duration.ofMillis(75)).select().first(ARRIVING_JOBS)
                .map(i -> startJob("a question that comes as users send them, number " + i))
                .collect().asList().await().atMost(JOB_END);

        await("every job completed").atMost(JOB_END).pollInterval(Duration.ofMillis(200))
                .until(() -> jobs.stream().allMatch(id -> "completed".equals(status(id).getString("state"))));
        JsonPath after = provider();
        assertThat(after.getLong("rateLimited") - before.getLong("rateLimited"))
                .as("calls the provider refused (429) with the budget at its limit").isZero();
        assertThat(after.getLong("admitted") - before.getLong("admitted")).as("one call a job").isEqualTo(ARRIVING_JOBS);
        assertThat(rateLimited("server") - pausedBefore).as("fleet pauses after a 429").isZero();
        assertThat(rateLimited("tokens") - heldBefore).as("calls the budget held back for tokens").isPositive();
        for (String id : jobs) {
            assertThat(status(id).getInt("attemptsMade")).as("job %s: waiting counted no attempt", id).isEqualTo(1);
        }
    }

    /** Forgets the budgets this class's calls spent, so that each test's starts full. */
    @AfterEach
    void forgetBudgets() {
        for (BudgetKey key : gate.budgets()) {
            String base = redisKeys.keyPrefix() + ":{llm:" + key.id() + "}:";
            inspector.send(Request.cmd(Command.DEL).arg(base + "budget").arg(base + "calls").arg(base + "line"));
        }
    }

    private static JsonPath provider() {
        return given().get("/simulator/provider").then().statusCode(200).extract().jsonPath();
    }

    private double rateLimited(String reason) {
        return meters.get("fq.llm.rate.limited").tag("reason", reason).counter().count();
    }

    private double rateLimitedAttempts() {
        return meters.find("fq.job.processing").tag("outcome", "rate-limited").timers().stream()
                .mapToDouble(Timer::count).sum();
    }
}
