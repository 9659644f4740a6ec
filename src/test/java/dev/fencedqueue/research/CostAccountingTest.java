package dev.fencedqueue.research;

import static dev.fencedqueue.testing.Timeouts.BROWSER_STEP;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.net.URL;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.llm.LlmPrices;
import dev.fencedqueue.testing.ChromiumExtension;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SwitchableConfig;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * Tokens have a price ({@code fq.llm.price.input} and {@code output}, per million tokens): a finished job's status
 * shows what its tokens cost beside them, by outcome; its tenant's view shows what the tenant's jobs cost today and
 * this month, and the console's Tenants view (in a real headless Chromium) beside its tokens;
 * {@code fq_llm_cost_total{tenant,outcome}} counts it. Without prices no cost is counted nor shown. Over
 * the OpenAI protocol to the simulator (the research protocol reports no tokens), tenants from {@code X-Tenant-Id},
 * the service's own workers.
 */
@QuarkusTest
@RuntimeProfile(CostAccountingTest.PricedTenants.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class CostAccountingTest {

    /** USD 3 per million prompt tokens, 15 per million completion tokens: whole micro-units, nothing rounded. */
    private static final long INPUT_PRICE = 3;
    private static final long OUTPUT_PRICE = 15;

    @RegisterExtension
    static final ChromiumExtension CHROMIUM = new ChromiumExtension();

    @TestHTTPResource("/")
    URL base;

    private final ObjectMapper json = new ObjectMapper();

    @Inject
    SwitchableConfig settings;

    /** The OpenAI protocol to the simulator, tenants from the header, and prices. */
    public static class PricedTenants implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(new OpenAiProtocolProfile().getConfigOverrides());
            config.put("fq.tenancy.source", "header");
            config.put("fq.llm.price.input", Long.toString(INPUT_PRICE));
            config.put("fq.llm.price.output", Long.toString(OUTPUT_PRICE));
            return config;
        }
    }

    @AfterEach
    void pricesOfTheClass() {
        settings.endOfTest();
    }

    @Test
    void aFinishedJobsStatusItsTenantsViewAndTheMetricShowWhatItsTokensCostAtThePrices() throws Exception {
        String tenant = "acme-" + System.nanoTime();
        // A tenant with settings has its own metric label.
        admin().contentType(ContentType.JSON).body(Map.of("weight", 2)).put("/admin/tenants/" + tenant).then()
                .statusCode(200);

        JsonNode status = finished(start(tenant));

        long prompt = status.path("tokens").path("result").path("promptTokens").asLong();
        long completion = status.path("tokens").path("result").path("completionTokens").asLong();
        assertThat(prompt).as("the simulator reports the prompt's tokens").isPositive();
        assertThat(completion).isPositive();
        double cost = LlmPrices.units(INPUT_PRICE * prompt + OUTPUT_PRICE * completion);
        assertThat(status.path("cost").path("result").isNumber()).as("cost: %s", status.path("cost")).isTrue();
        assertThat(status.path("cost").path("result").asDouble()).as("prompt at the input price, completion at the "
                + "output price, per million").isEqualTo(cost);
        assertThat(status.path("cost").size()).as("one outcome, as the tokens: %s", status.path("cost")).isOne();

        await("its tenant's view counts it").atMost(TIMEOUT).until(() -> tenantView(tenant).path("cost")
                .path("today").asDouble() > 0);
        JsonNode view = tenantView(tenant);
        assertThat(view.path("cost").path("today").asDouble()).isEqualTo(cost);
        assertThat(view.path("cost").path("thisMonth").asDouble()).isEqualTo(cost);
        assertThat(view.path("cost").path("queue").asText()).isEqualTo(view.path("tokens").path("queue").asText());

        String line = "fq_llm_cost_total{outcome=\"result\",tenant=\"" + tenant + "\"} ";
        await("fq_llm_cost_total counts it").atMost(TIMEOUT).until(() -> metric(line) > 0);
        assertThat(metric(line)).isCloseTo(cost, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(metrics()).as("started at 0 for every outcome").contains(
                "fq_llm_cost_total{outcome=\"zombie\",tenant=\"default\"} ",
                "fq_llm_cost_total{outcome=\"saved\",tenant=\"other\"} ");
    }

    @Test
    void theConsolesTenantsViewShowsWhatATenantsTokensCostBesideThem() throws Exception {
        String tenant = "initech-" + System.nanoTime();
        admin().contentType(ContentType.JSON).body(Map.of("weight", 1)).put("/admin/tenants/" + tenant).then()
                .statusCode(200);
        JsonNode status = finished(start(tenant));
        await("its tenant's view counts it").atMost(TIMEOUT).until(() -> tenantView(tenant).path("cost")
                .path("today").asDouble() > 0);
        JsonNode view = tenantView(tenant);
        String tokens = String.format(Locale.ENGLISH, "%,d", view.path("tokens").path("today").asLong());
        String cost = new BigDecimal(view.path("cost").path("today").asText()).stripTrailingZeros()
                .toPlainString();
        assertThat(status.path("cost").path("result").asDouble()).isPositive();

        ChromeDriver browser = CHROMIUM.driver();
        browser.get(base.toString().replace("://", "://admin:admin@") + "admin/");
        await("the console is loaded").atMost(BROWSER_STEP).until(() -> browser.getCurrentUrl().contains(
                "/admin/console/#/"));
        browser.get(base + "admin/console/#/tenants");
        String today = "#tenants tr[data-tenant='" + tenant + "'] td:nth-of-type(5)";
        await("the tenant is listed with its tokens today").atMost(BROWSER_STEP).until(() -> !String.valueOf(browser
                .executeScript("const e = document.querySelector(arguments[0]); return e ? e.textContent : ''", today))
                .isEmpty());
        assertThat(browser.executeScript("return document.querySelector(arguments[0]).textContent", today))
                .as("tokens today, and their cost in the prices' currency").isEqualTo(tokens + " (cost " + cost + ")");
    }

    @Test
    void withoutPricesAJobsStatusAndItsTenantsViewShowNoCost() throws Exception {
        settings.adjust("fq.llm.price.input", "");
        settings.adjust("fq.llm.price.output", "");
        String tenant = "globex-" + System.nanoTime();

        JsonNode status = finished(start(tenant));

        assertThat(status.path("tokens").path("result").path("completionTokens").asLong()).isPositive();
        assertThat(status.has("cost")).as("no cost in %s", status).isFalse();
        JsonNode view = tenantView(tenant);
        assertThat(view.path("tokens").path("today").asLong()).isPositive();
        assertThat(view.has("cost")).as("no cost in %s", view).isFalse();
    }

    private static String start(String tenant) {
        return given().header("X-Tenant-Id", tenant).contentType(ContentType.JSON)
                .body(Map.of("query", "what does it cost?")).post("/research/start").then().statusCode(202)
                .extract().path("jobId");
    }

    /** @return the job's status once it completed and its tokens were counted */
    private JsonNode finished(String jobId) throws Exception {
        await().atMost(TIMEOUT).until(() -> status(jobId), status -> "completed".equals(status.path("state").asText())
                && status.path("tokens").has("result"));
        return status(jobId);
    }

    private JsonNode status(String jobId) throws Exception {
        return json.readTree(given().get("/research/status/" + jobId).then().statusCode(200).extract().asString());
    }

    private JsonNode tenantView(String tenant) throws Exception {
        return json.readTree(admin().get("/admin/tenants/" + tenant).then().statusCode(200).extract().asString());
    }

    /** @return a request with the test profile's operator credentials ({@code %test.fq.admin.password}) */
    private static io.restassured.specification.RequestSpecification admin() {
        return given().auth().preemptive().basic("admin", "admin");
    }

    private static String metrics() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    /** @return the value of the metric line that starts with {@code line} (its name and labels), 0 when none does */
    private static double metric(String line) {
        return metrics().lines().filter(metric -> metric.startsWith(line))
                .mapToDouble(metric -> Double.parseDouble(metric.substring(line.length()).trim())).findFirst().orElse(0);
    }
}
