package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;

import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/** What Kubernetes probes, Prometheus and API clients read from the Quarkus conventional endpoints. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class OperationsEndpointsTest {

    @Test
    void probesReportLiveWorkersAndReachableRedis() {
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'workers' }.status", equalTo("UP"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'redis' }.status", equalTo("UP"));
    }

    @Test
    void metricsCountCompletedJobsPerQueue() {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "count me")).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        await().atMost(TIMEOUT).until(() ->
                "completed".equals(given().get("/research/status/" + jobId).path("state")));
        await().atMost(TIMEOUT).untilAsserted(() -> given().get("/q/metrics").then().statusCode(200)
                .body(matchesPattern("(?s).*fq_worker_jobs_completed_total\\{queue=\"deep-research\",worker=\"[^\"]+\"} [1-9].*"))
                .body(containsString("fq_worker_writes_rejected_total")));
    }

    @Test
    void openApiDescribesTheResearchApi() {
        given().accept("application/json").get("/q/openapi").then().statusCode(200)
                .body(containsString("/research/start")).body(containsString("/research/stream/{jobId}"))
                .body(containsString("/notifications/jobs/{jobId}/stream")).body(containsString("text/event-stream"));
    }
}
