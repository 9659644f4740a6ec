package dev.fencedqueue.llm.budget;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.research.OpenAiProtocolProfile;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The fleet's LLM budget is spent in the order fair dispatch chooses: with one call at once
 * ({@code fq.llm.budget.max-concurrent=1}) and two worker slots, a tenant that submitted six jobs does not take the
 * whole budget from one that submitted two just after: a job whose call the budget held back keeps its place, in the
 * queue (its tenant pays nothing for the run that waited) and in the budget's line (a fresh job does not take the
 * freed call from it), so the light tenant's jobs finish among the heavy one's, not after all of them as they would
 * in one line. The jobs are all added before the worker starts, so that the order they finish in is fair dispatch's,
 * not how fast a busy machine added them (a slow {@code POST} let the first heavy jobs finish before the light ones
 * came).
 */
@QuarkusTest
@TestProfile(LlmBudgetFairnessTest.OneCallAtOnce.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class LlmBudgetFairnessTest extends ResearchTestSupport {

    /**
     * The OpenAI protocol, tenants from {@code X-Tenant-Id}, one LLM call at once, and no worker of the service's own:
     * the test's worker, with two slots, is the only one.
     */
    public static class OneCallAtOnce extends WorkersOffProfile {
        @Override
        protected Map<String, String> more() {
            Map<String, String> config = new HashMap<>(new OpenAiProtocolProfile().getConfigOverrides());
            config.putAll(Map.of("fq.tenancy.source", "header", "fq.worker.concurrency", "2",
                    "fq.llm.budget.max-concurrent", "1"));
            return config;
        }
    }

    @Inject
    MeterRegistry meters;

    @Test
    void aHeavyTenantDoesNotTakeTheWholeBudget() {
        List<String> heavy = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            heavy.add(start("heavy", "heavy question " + i));
        }
        List<String> light = List.of(start("light", "light question 0"), start("light", "light question 1"));
        startResearchWorker("fair-budget");

        List<String> all = new ArrayList<>(heavy);
        all.addAll(light);
        await("every job completed").atMost(TIMEOUT.multipliedBy(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> all.stream().allMatch(id -> "completed".equals(status(id).getString("state"))));
        long lightDone = light.stream().mapToLong(id -> status(id).getLong("finishedOn")).max().orElseThrow();
        long heavyDoneAfter = heavy.stream().filter(id -> status(id).getLong("finishedOn") > lightDone).count();
        assertThat(heavyDoneAfter).as("heavy jobs still to finish once the light tenant's two had: in one line, none")
                .isPositive();
        assertThat(meters.get("fq.llm.rate.limited").tag("reason", "concurrency").counter().count())
                .as("the budget held calls back").isPositive();
        for (String id : all) {
            assertThat(status(id).getInt("attemptsMade")).as("job %s: waiting counted no attempt", id).isEqualTo(1);
        }
    }

    private static String start(String tenant, String query) {
        return given().header("X-Tenant-Id", tenant).contentType(ContentType.JSON).body(Map.of("query", query))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
    }
}
