package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.net.URL;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * With {@code fq.tenancy.source=header}, a job added over HTTP belongs to the tenant its {@code X-Tenant-Id} header
 * names (a trusted gateway sets it), research and fan-out jobs alike; without it, or with a value that is no tenant id,
 * the request gets 400 naming the header and nothing is added.
 */
@QuarkusTest
@RuntimeProfile(JobTenancyHeaderTest.TenantFromHeader.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobTenancyHeaderTest {

    /** Tenants from the header; no worker, so that jobs wait. */
    public static class TenantFromHeader extends WorkersOffProfile {
        @Override
        protected Map<String, String> more() {
            return Map.of("fq.tenancy.source", "header");
        }
    }

    @Inject
    Queues queues;

    @TestHTTPResource("/")
    URL base;

    @Inject
    ResearchConfig research;

    @Test
    void aResearchJobBelongsToTheTenantItsHeaderNames() {
        String jobId = given().header("X-Tenant-Id", "acme").contentType(ContentType.JSON)
                .body(Map.of("query", "whose job?")).post("/research/start").then().statusCode(202)
                .extract().path("jobId");

        given().get("/research/status/" + jobId).then().statusCode(200).body("tenant", equalTo("acme"));
    }

    /** A client (the research page) reads, before it starts a job, that it must send the tenant, and in which header. */
    @Test
    void theSettingsSayWhichHeaderMustNameTheTenant() {
        given().get("/research/settings").then().statusCode(200).body("tenancy.source", equalTo("header"))
                .body("tenancy.header", equalTo("X-Tenant-Id")).body("tenancy.rule", startsWith("1 to 64 characters"));
    }

    /** The stream of a job needs no tenant header (an EventSource cannot send one): the page follows what it started. */
    @Test
    void aJobsStatusAndStreamAreReadWithoutTheTenantHeader() {
        String jobId = given().header("X-Tenant-Id", "acme").contentType(ContentType.JSON)
                .body(Map.of("query", "followed")).post("/research/start").then().statusCode(202)
                .extract().path("jobId");

        given().get("/research/status/" + jobId).then().statusCode(200);
        try (SseClient stream = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(TIMEOUT).until(() -> stream.status().isDone());
            assertThat(stream.status()).isCompletedWithValue(200);
        }
    }

    @Test
    void aRequestWithoutItsTenantOrWithABadOneIsRefusedAndAddsNothing() {
        JobQueue queue = queues.queue(research.queue());
        long before = waiting(queue);

        given().contentType(ContentType.JSON).body(Map.of("query", "nobody's job")).post("/research/start")
                .then().statusCode(400).body("error", equalTo("bad_request")).body("field", equalTo("X-Tenant-Id"))
                .body("message", startsWith("`X-Tenant-Id` must name the tenant"));
        for (String bad : List.of("two words", "{acme}", "x".repeat(65))) {
            given().header("X-Tenant-Id", bad).contentType(ContentType.JSON).body(Map.of("query", "bad tenant"))
                    .post("/research/start").then().statusCode(400).body("field", equalTo("X-Tenant-Id"))
                    .body("message", startsWith("`X-Tenant-Id` must be 1 to 64 characters"));
        }

        assertThat(waiting(queue)).as("nothing added").isEqualTo(before);
    }

    @Test
    void aFanOutBelongsToTheTenantItsHeaderNames() {
        String channel = "tenant-news-" + System.nanoTime();
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of("u-1", "u-2")))
                .post("/notifications/channels/" + channel + "/subscribers").then().statusCode(200);
        given().contentType(ContentType.JSON).body(Map.of("message", "no tenant"))
                .post("/notifications/channels/" + channel + "/fan-out").then().statusCode(400)
                .body("field", equalTo("X-Tenant-Id"));

        String jobId = given().header("X-Tenant-Id", "globex").contentType(ContentType.JSON)
                .body(Map.of("message", "hello")).post("/notifications/channels/" + channel + "/fan-out")
                .then().statusCode(202).extract().path("jobId");

        given().get("/notifications/jobs/" + jobId).then().statusCode(200).body("tenant", equalTo("globex"));
    }

    private static long waiting(JobQueue queue) {
        return queue.getJobCounts().await().atMost(TIMEOUT).getOrDefault(JobState.WAITING, 0L);
    }
}
