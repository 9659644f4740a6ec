package dev.fencedqueue.monitoring;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;

import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the Prometheus alert rules of {@code monitoring/}: every metric they name is published in
 * {@code /q/metrics} (after a research job and a fan-out ran), the dashboard is importable as it is (its data source an
 * input, every panel placed and queried), KEDA's ScaledObject scales on the list {@code fq_queue_jobs{state="waiting"}}
 * counts, and the alert rules pass {@code promtool check rules} and their unit tests ({@code promtool test rules}),
 * which CI requires ({@code FQ_PROMTOOL=required}; elsewhere the promtool part is skipped without it).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class MonitoringFilesTest {

    private static final Path DASHBOARD = Path.of("monitoring/grafana-dashboard.json");
    private static final Path ALERTS = Path.of("monitoring/prometheus-alerts.yml");
    private static final Path ALERT_TESTS = Path.of("monitoring/prometheus-alerts.test.yml");
    private static final Path MANIFESTS = Path.of("src/main/kubernetes/kubernetes.yml");
    private static final Pattern METRIC = Pattern.compile("\\bfq_[a-z0-9_]+");

    private final ObjectMapper json = new ObjectMapper();
    private final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());

    @Inject
    ResearchConfig research;

    @Inject
    RedisKeysConfig redisKeys;

    @Test
    void everyMetricTheDashboardAndTheAlertsNameIsPublished() throws IOException {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "metrics")).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of("u-1", "u-2")))
                .post("/notifications/channels/monitoring/subscribers").then().statusCode(200);
        given().contentType(ContentType.JSON).body(Map.of("message", "hello", "chunkSize", 10))
                .post("/notifications/channels/monitoring/fan-out").then().statusCode(202);
        await().atMost(TIMEOUT).until(() -> "completed".equals(given().get("/research/status/" + jobId).then()
                .extract().path("state")));

        Set<String> named = new TreeSet<>();
        for (String expr : dashboardQueries()) {
            named.addAll(metrics(expr));
        }
        for (JsonNode rule : alertRules()) {
            named.addAll(metrics(rule.path("expr").asText()));
        }
        assertThat(named).as("what the files name").contains("fq_queue_jobs", "fq_queue_oldest_waiting_age_seconds",
                "fq_jobs_stalled_total", "fq_worker_writes_rejected_total", "fq_redis_replicas_online",
                "fq_llm_tokens_total", "fq_bulk_chunks_committed_total", "fq_sse_subscribers");
        await("every metric named is published").atMost(TIMEOUT).untilAsserted(() ->
                assertThat(published()).containsAll(named));
    }

    @Test
    void theDashboardIsImportableAsItIs() throws IOException {
        JsonNode dashboard = json.readTree(DASHBOARD.toFile());
        assertThat(dashboard.path("__inputs").findValuesAsText("name")).contains("DS_PROMETHEUS");
        assertThat(dashboard.path("uid").asText()).isEqualTo("fenced-queue");
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(ids.add(panel.path("id").asInt())).as("unique panel id " + panel.path("id")).isTrue();
            assertThat(panel.path("title").asText()).isNotBlank();
            JsonNode at = panel.path("gridPos");
            assertThat(at.path("x").asInt() + at.path("w").asInt()).as(panel.path("title").asText()).isBetween(1, 24);
            if (!"row".equals(panel.path("type").asText())) {
                assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
                for (JsonNode target : panel.path("targets")) {
                    assertThat(target.path("expr").asText()).isNotBlank();
                    assertThat(target.path("datasource").path("uid").asText()).isEqualTo("${DS_PROMETHEUS}");
                }
            }
        }
        assertThat(dashboard.path("templating").path("list").get(0).path("definition").asText())
                .isEqualTo("label_values(fq_queue_jobs, queue)");
    }

    /** KEDA scales on the research queue's wait list, which is what {@code fq_queue_jobs{state="waiting"}} counts. */
    @Test
    void kedaScalesOnTheListTheQueueDepthMetricCounts() throws IOException {
        String waitList = QueueKeys.of(redisKeys.keyPrefix(), research.queue()).waitList();
        List<String> listNames = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(MANIFESTS.toFile())) {
            for (JsonNode document : yaml.readValues(parser, JsonNode.class).readAll()) {
                if ("ScaledObject".equals(document.path("kind").asText())) {
                    document.path("spec").path("triggers").forEach(trigger ->
                            listNames.add(trigger.path("metadata").path("listName").asText()));
                }
            }
        }
        assertThat(listNames).containsExactly(waitList);
        assertThat(dashboardQueries()).anyMatch(expr -> expr.contains("fq_queue_jobs"));
    }

    @Test
    void theAlertRulesPassPromtoolAndTheirUnitTests() throws Exception {
        for (JsonNode rule : alertRules()) {
            assertThat(rule.path("alert").asText()).startsWith("FencedQueue");
            assertThat(rule.path("labels").path("severity").asText()).isIn("warning", "critical");
            assertThat(rule.path("annotations").path("summary").asText()).isNotBlank();
        }
        String promtool = promtool();
        assertThat(run(promtool, "check", "rules", ALERTS.toString())).as("promtool check rules").isZero();
        assertThat(run(promtool, "test", "rules", ALERT_TESTS.toString())).as("promtool test rules").isZero();
    }

    private List<String> dashboardQueries() throws IOException {
        JsonNode dashboard = json.readTree(DASHBOARD.toFile());
        List<String> queries = new ArrayList<>(dashboard.findValuesAsText("expr"));
        queries.addAll(dashboard.path("templating").findValuesAsText("definition"));
        return queries;
    }

    private List<JsonNode> alertRules() throws IOException {
        List<JsonNode> rules = new ArrayList<>();
        yaml.readTree(ALERTS.toFile()).path("groups").forEach(group -> group.path("rules").forEach(rules::add));
        assertThat(rules).isNotEmpty();
        return rules;
    }

    private static Set<String> metrics(String expr) {
        Set<String> names = new HashSet<>();
        Matcher matcher = METRIC.matcher(expr);
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }

    private static Set<String> published() {
        Set<String> names = new HashSet<>();
        for (String line : given().get("/q/metrics").then().statusCode(200).extract().asString().split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /** @return promtool's path ({@code FQ_PROMTOOL}, else {@code promtool} on the PATH); skips the test without one */
    private static String promtool() throws Exception {
        String configured = System.getenv("FQ_PROMTOOL");
        String command = configured != null && !configured.isBlank() && !"required".equals(configured) ? configured
                : "promtool";
        boolean found;
        try {
            found = run(command, "--version") == 0;
        } catch (IOException e) {
            found = false;
        }
        if (!found && "required".equals(configured)) {
            throw new IllegalStateException("FQ_PROMTOOL=required but promtool is missing: apt-get install prometheus");
        }
        Assumptions.assumeTrue(found, "promtool is not installed (apt-get install prometheus); CI requires it");
        return command;
    }

    private static int run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not end in 60 s");
        }
        if (process.exitValue() != 0) {
            System.err.println(String.join(" ", command) + ":\n" + output);
        }
        return process.exitValue();
    }
}
