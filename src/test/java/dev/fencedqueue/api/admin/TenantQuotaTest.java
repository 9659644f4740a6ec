package dev.fencedqueue.api.admin;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.nullValue;

import dev.fencedqueue.queue.Queues;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.research.OpenAiProtocolProfile;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SwitchableConfig;
import dev.fencedqueue.tenancy.FairDispatchSync;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Token quotas per tenant ({@code PUT /admin/tenants/{id}}), kept in Redis: once a tenant's research jobs spent its
 * quota in the period, its next {@code POST /research/start} gets 429 with {@code Retry-After} and a message naming
 * the quota and its reset, while other tenants still start jobs; going back to the defaults lets it start again; its
 * tokens are in {@code fq_tenant_tokens_total} under its own label, a tenant's without settings under {@code other}. Over
 * the OpenAI protocol to the simulator (the research protocol reports no tokens), tenants from {@code X-Tenant-Id}.
 */
@QuarkusTest
@RuntimeProfile(TenantQuotaTest.OpenAiTenants.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class TenantQuotaTest {

    @Inject
    Queues queues;

    @Inject
    SwitchableConfig settings;

    @Inject
    FairDispatchSync fairDispatch;

    @Inject
    ResearchConfig research;

    @Inject
    QueueInspector redis;

    /** The OpenAI protocol to the simulator, and tenants from the header. */
    public static class OpenAiTenants implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(new OpenAiProtocolProfile().getConfigOverrides());
            config.put("fq.tenancy.source", "header");
            return config;
        }
    }

    @Test
    void aTenantPastItsTokenQuotaStartsNoJobUntilThePeriodEndsWhileOthersStillDo() {
        String acme = "acme-" + System.nanoTime();
        String globex = "globex-" + System.nanoTime();
        AdminApi.admin().contentType(ContentType.JSON)
                .body(Map.of("tokenQuota", Map.of("tokens", 1, "period", "day"))).put("/admin/tenants/" + acme)
                .then().statusCode(200).body("tokenQuota.tokens", equalTo(1)).body("tokenQuota.period", equalTo("day"))
                .body("tokens.today", equalTo(0));

        String first = start(acme).statusCode(202).extract().path("jobId");
        await().atMost(TIMEOUT).until(() -> "completed".equals(given().get("/research/status/" + first).path("state")));
        await().atMost(TIMEOUT).until(() -> AdminApi.admin().get("/admin/tenants/" + acme).<Integer>path("tokens.today") > 0);

        await().atMost(TIMEOUT).until(() -> tenantTokens(acme) > 0);
        assertThat(metric("fq_tenant_wait_seconds_count{tenant=\"" + acme + "\"} ")).as("its job's wait, by its label")
                .isEqualTo(1);

        start(acme).statusCode(429).header("Retry-After", Integer::parseInt, greaterThan(0))
                .body("error", equalTo("too_many_requests"))
                .body("message", containsString("token quota of 1 tokens a day"))
                .body("message", containsString("resets at"));
        double othersBefore = tenantTokens("other");
        String second = start(globex).statusCode(202).extract().path("jobId");
        await().atMost(TIMEOUT).until(() -> "completed".equals(given().get("/research/status/" + second).path("state")));
        await("a tenant without settings counts as other").atMost(TIMEOUT)
                .until(() -> tenantTokens("other") > othersBefore);
        assertThat(tenantTokens(globex)).as("no label of its own").isZero();

        AdminApi.admin().delete("/admin/tenants/" + acme).then().statusCode(200).body("removed", equalTo(true));
        AdminApi.admin().get("/admin/tenants/" + acme).then().statusCode(200).body("tokenQuota", nullValue())
                .body("tokens.today", greaterThan(0));
        start(acme).statusCode(202);
    }

    @Test
    void aDeepResearchJobsPlanCountsAsAnAttemptAndItsTokensTowardsItsTenants() {
        String tenant = "deep-" + System.nanoTime();
        String jobId = given().header("X-Tenant-Id", tenant).contentType(ContentType.JSON)
                .body(Map.of("query", "heat pumps", "mode", "deep")).post("/research/start").then().statusCode(202)
                .extract().path("jobId");
        await().atMost(TIMEOUT).until(() -> "completed".equals(given().get("/research/status/" + jobId).path("state")));

        JsonPath status = given().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
        assertThat(status.getInt("tokens.result.attempts")).as("the plan, then the report").isEqualTo(2);
        long spent = spent(status);
        List<String> children = status.getList("children.jobId");
        assertThat(children).hasSize(3);
        for (String child : children) {
            spent += spent(given().get("/research/status/" + child).then().statusCode(200).extract().jsonPath());
        }
        assertThat(AdminApi.admin().get("/admin/tenants/" + tenant).<Integer>path("tokens.today"))
                .as("the tenant's tokens: the parent's plan and report, and its children's answers").isEqualTo(spent);
        assertThat(redis.hash(queues.keys(research.queue()).job(jobId)).keySet())
                .as("every run's charge settled by its tokens").noneMatch(field -> field.startsWith("charged"));
    }

    @Test
    void theResearchQueueChargesTokensOnlyInAProtocolThatCountsThem() {
        String meta = queues.keys(research.queue()).meta();
        assertThat(redis.hash(meta)).as("OpenAI's protocol reports tokens").containsEntry("costUnit", "tokens");
        settings.adjust("fq.llm.protocol", "research");
        try {
            fairDispatch.syncCostUnits().await().atMost(TIMEOUT);
            assertThat(redis.hash(meta)).as("the research protocol reports none: slot time, the field's absence")
                    .doesNotContainKey("costUnit");
        } finally {
            settings.endOfTest();
            fairDispatch.syncCostUnits().await().atMost(TIMEOUT);
        }
        assertThat(redis.hash(meta)).containsEntry("costUnit", "tokens");
    }

    /** @return the prompt and completion tokens a job's status counts under {@code result} */
    private static long spent(JsonPath status) {
        return status.getLong("tokens.result.promptTokens") + status.getLong("tokens.result.completionTokens");
    }

    @Test
    void aWeightReachesTheQueuesThisInstanceServesAndLeavesWithTheDefaults() {
        String heavy = "heavy-" + System.nanoTime();
        String weights = queues.keys(research.queue()).tenantWeights();
        put(heavy, Map.of("weight", 2.5)).statusCode(200).body("weight", equalTo(2.5f));
        assertThat(redis.hash(weights)).as("fair dispatch reads it in the research queue's slot")
                .containsEntry(heavy, "2.5");

        AdminApi.admin().delete("/admin/tenants/" + heavy).then().statusCode(200);
        assertThat(redis.hash(weights)).doesNotContainKey(heavy);
        AdminApi.admin().get("/admin/tenants/" + heavy).then().statusCode(200).body("weight", equalTo(1));
    }

    @Test
    void refusesSettingsThatAreNotValidNamingTheField() {
        put("someone", Map.of("tokenQuota", Map.of("tokens", 0, "period", "day"))).statusCode(400)
                .body("field", equalTo("tokenQuota.tokens"));
        put("someone", Map.of("tokenQuota", Map.of("tokens", 5, "period", "week"))).statusCode(400)
                .body("field", equalTo("tokenQuota.period"));
        put("someone", Map.of("weight", 0)).statusCode(400).body("field", equalTo("weight"));
        put("someone", Map.of("weight", "heavy")).statusCode(400).body("field", equalTo("weight"));
        put("someone", Map.of("priority", 3)).statusCode(400).body("field", equalTo("priority"));
        put("two words", Map.of()).statusCode(400).body("field", equalTo("id"));
        AdminApi.admin().get("/admin/tenants/someone").then().statusCode(200).body("tokenQuota", nullValue())
                .body("weight", equalTo(1)).body("tokens.today", equalTo(0));
    }

    /** @return {@code fq_tenant_tokens_total} of a tenant label, 0 when the metric has no such label */
    private static double tenantTokens(String label) {
        return metric("fq_tenant_tokens_total{tenant=\"" + label + "\"} ");
    }

    /** @return the value of the metric line that starts with {@code line} (its name and labels), 0 when none does */
    private static double metric(String line) {
        return given().get("/q/metrics").then().statusCode(200).extract().asString().lines()
                .filter(metric -> metric.startsWith(line)).mapToDouble(metric -> Double.parseDouble(metric.substring(
                        line.length()).trim())).findFirst().orElse(0);
    }

    private static ValidatableResponse start(String tenant) {
        return given().header("X-Tenant-Id", tenant).contentType(ContentType.JSON)
                .body(Map.of("query", "what does it cost?")).post("/research/start").then();
    }

    private static ValidatableResponse put(String tenant, Map<String, Object> body) {
        return AdminApi.admin().contentType(ContentType.JSON).body(body).put("/admin/tenants/" + tenant).then();
    }
}
