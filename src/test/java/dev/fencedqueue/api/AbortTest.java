package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.SimulatorStreams;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/** A user abort stops a running job's LLM call within a second, ends it once, and never retries it. */
@QuarkusTest
@TestProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AbortTest extends ResearchTestSupport {

    @Test
    void abortingARunningJobClosesItsLlmCallWithinASecondAndEndsTheStreamOnce() {
        Worker worker = startResearchWorker("abort-worker");
        String jobId = startJob("abort me while running");
        long token;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> sse.events().stream().anyMatch(e -> "progress".equals(e.event())));
            token = sse.events().get(0).fencingToken();

            given().post("/research/abort/" + jobId).then().statusCode(200)
                    .body("state", equalTo("aborted")).body("previousState", equalTo("active"))
                    .body("wasRunning", equalTo(true));
            await().atMost(Duration.ofSeconds(1)).until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);

            await().atMost(Duration.ofSeconds(5)).until(() -> sse.ended().isDone());
            List<SseClient.Message> events = sse.events();
            assertThat(events.get(events.size() - 1).event()).isEqualTo("aborted");
            assertThat(events.get(events.size() - 1).fencingToken()).as("written under the run's token")
                    .isEqualTo(token);
            assertThat(events.get(events.size() - 1).data()).contains("aborted by user");
            assertThat(events).filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.event())).hasSize(1);
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> worker.activeJobIds().isEmpty());

        // Never retried: nothing starts again, the token stays the run's, and the job stays aborted.
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> {
            JsonPath status = status(jobId);
            return status.getString("state").equals("aborted") && status.getLong("fencingToken") == token;
        });
        assertThat(SimulatorStreams.of(jobId).opened()).isEqualTo(1);
        List<String> history = given().get("/research/history/" + jobId).jsonPath().getList("event");
        assertThat(history).containsOnlyOnce("started").endsWith("aborted");
        assertThat(status(jobId).getString("failedReason")).isEqualTo("aborted by user");
    }

    @Test
    void abortingAWaitingJobRemovesItFromTheQueue() {
        String jobId = startJob("abort me while waiting");
        assertThat(status(jobId).getString("state")).isEqualTo("waiting");

        given().post("/research/abort/" + jobId).then().statusCode(200)
                .body("previousState", equalTo("waiting")).body("wasRunning", equalTo(false));

        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> sse.ended().isDone());
            assertThat(sse.events()).extracting(SseClient.Message::event).containsExactly("aborted");
        }
        // A worker that starts now finds nothing to run.
        Worker worker = startResearchWorker("late-worker");
        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(2))
                .until(() -> status(jobId).getLong("fencingToken") == 0 && worker.stats().completed() == 0);
        assertThat(status(jobId).getString("state")).isEqualTo("aborted");
    }

    @Test
    void abortingAFinishedJobIsAConflict() {
        String jobId = startJob("abort me twice");
        given().post("/research/abort/" + jobId).then().statusCode(200);
        given().post("/research/abort/" + jobId).then().statusCode(409).contentType(ContentType.JSON)
                .body("error", equalTo("conflict"));
    }
}
