package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.config.WorkerConfig;
import dev.fencedqueue.research.ResearchProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import dev.fencedqueue.worker.WorkerOptions;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A user abort stops a running job's LLM call within a second, ends it once, and never retries it. */
@QuarkusTest
@TestProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AbortTest {

    @TestHTTPResource("/")
    URL base;

    @Inject
    WorkerManager workers;

    @Inject
    WorkerConfig config;

    @Inject
    ResearchProcessor research;

    private Worker worker;

    @AfterEach
    void stopWorker() {
        if (worker != null) {
            workers.stop(worker).await().atMost(Duration.ofSeconds(10));
            worker = null;
        }
    }

    @Test
    void abortingARunningJobClosesItsLlmCallWithinASecondAndEndsTheStreamOnce() {
        worker = workers.create(research, WorkerOptions.from(config, "abort-worker"));
        worker.start();
        String jobId = start("abort me while running");
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> sse.events().stream().anyMatch(e -> "progress".equals(e.event())));

            given().post("/research/abort/" + jobId).then().statusCode(200)
                    .body("state", equalTo("aborted")).body("previousState", equalTo("active"))
                    .body("wasRunning", equalTo(true));
            await().atMost(Duration.ofSeconds(1)).until(() -> simulator(jobId).getInt("closedEarly") == 1);

            await().atMost(Duration.ofSeconds(5)).until(() -> sse.ended().isDone());
            List<SseClient.Message> events = sse.events();
            assertThat(events.get(events.size() - 1).event()).isEqualTo("aborted");
            assertThat(events.get(events.size() - 1).data()).contains("\"fencingToken\":1").contains("aborted by user");
            assertThat(events).filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.event())).hasSize(1);
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> worker.activeJobIds().isEmpty());

        // Never retried: nothing starts again, the token stays 1, and the job stays aborted.
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> {
            JsonPath status = status(jobId);
            return status.getString("state").equals("aborted") && status.getInt("fencingToken") == 1;
        });
        assertThat(simulator(jobId).getInt("opened")).isEqualTo(1);
        List<String> history = given().get("/research/history/" + jobId).jsonPath().getList("event");
        assertThat(history).containsOnlyOnce("started").endsWith("aborted");
        assertThat(status(jobId).getString("failedReason")).isEqualTo("aborted by user");
    }

    @Test
    void abortingAWaitingJobRemovesItFromTheQueue() {
        String jobId = start("abort me while waiting");
        assertThat(status(jobId).getString("state")).isEqualTo("waiting");

        given().post("/research/abort/" + jobId).then().statusCode(200)
                .body("previousState", equalTo("waiting")).body("wasRunning", equalTo(false));

        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> sse.ended().isDone());
            assertThat(sse.events()).extracting(SseClient.Message::event).containsExactly("aborted");
        }
        // A worker that starts now finds nothing to run.
        worker = workers.create(research, WorkerOptions.from(config, "late-worker"));
        worker.start();
        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(2))
                .until(() -> status(jobId).getInt("fencingToken") == 0 && worker.stats().completed() == 0);
        assertThat(status(jobId).getString("state")).isEqualTo("aborted");
    }

    @Test
    void abortingAFinishedJobIsAConflict() {
        String jobId = start("abort me twice");
        given().post("/research/abort/" + jobId).then().statusCode(200);
        given().post("/research/abort/" + jobId).then().statusCode(409).contentType(ContentType.JSON)
                .body("error", equalTo("conflict"));
    }

    private static String start(String query) {
        return given().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
    }

    private static JsonPath status(String jobId) {
        return given().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    private static JsonPath simulator(String jobId) {
        return given().get("/simulator/stats").then().statusCode(200).extract().jsonPath()
                .setRootPath("jobs.'" + jobId + "'");
    }
}
