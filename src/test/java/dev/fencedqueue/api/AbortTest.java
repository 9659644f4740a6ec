package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;

import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SimulatorStreams;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.MarkerWaits;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerOptions;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A user abort stops a running job's LLM call (long before its stream would end by itself), ends the job once, and
 * never retries it: the job is left in none of the queue's lists a worker takes jobs from, and a worker that looked
 * at the queue after the abort did not start it.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AbortTest extends ResearchTestSupport {

    @Inject
    Queues queues;

    @Inject
    QueueInspector redis;

    @Test
    void abortingARunningJobClosesItsLlmCallAndEndsTheStreamOnce() {
        Worker worker = startResearchWorker("abort-worker");
        String jobId = startJob("abort me while running");
        long token;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(TIMEOUT).until(() -> sse.events().stream().anyMatch(e -> "progress".equals(e.event())));
            token = sse.events().get(0).fencingToken();

            given().post("/research/abort/" + jobId).then().statusCode(200)
                    .body("state", equalTo("aborted")).body("previousState", equalTo("active"))
                    .body("wasRunning", equalTo(true));
            // Closed early: the simulator's stream would run for seconds more.
            await().atMost(TIMEOUT).until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);

            await().atMost(TIMEOUT).until(() -> sse.ended().isDone());
            List<SseClient.Message> events = sse.events();
            assertThat(events.get(events.size() - 1).event()).isEqualTo("aborted");
            assertThat(events.get(events.size() - 1).fencingToken()).as("written under the run's token")
                    .isEqualTo(token);
            assertThat(events.get(events.size() - 1).data()).contains("aborted by user");
            assertThat(events).filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.event())).hasSize(1);
        }
        await().atMost(TIMEOUT).until(() -> worker.activeJobIds().isEmpty());

        // Never retried: the worker looked at the queue again and waits, nothing started again, the token stays the
        // run's, and the job stays aborted.
        awaitWaitingForJobs(worker, "abort-worker");
        assertThat(redis.queuedIn(queues.queue(worker.queue()), jobId)).as("where a worker could take it").isEmpty();
        JsonPath status = status(jobId);
        assertThat(status.getString("state")).isEqualTo("aborted");
        assertThat(status.getLong("fencingToken")).isEqualTo(token);
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
            await().atMost(TIMEOUT).until(() -> sse.ended().isDone());
            assertThat(sse.events()).extracting(SseClient.Message::event).containsExactly("aborted");
        }
        // A worker that starts now looks at the queue, finds nothing to run, and waits.
        Worker worker = startResearchWorker("late-worker");
        awaitWaitingForJobs(worker, "late-worker");
        assertThat(redis.queuedIn(queues.queue(worker.queue()), jobId)).as("where a worker could take it").isEmpty();
        assertThat(status(jobId).getLong("fencingToken")).as("never activated").isZero();
        assertThat(worker.stats().completed()).isZero();
        assertThat(status(jobId).getString("state")).isEqualTo("aborted");
    }

    @Test
    void abortingAFinishedJobIsAConflict() {
        String jobId = startJob("abort me twice");
        given().post("/research/abort/" + jobId).then().statusCode(200);
        given().post("/research/abort/" + jobId).then().statusCode(409).contentType(ContentType.JSON)
                .body("error", equalTo("conflict"));
    }

    /** Waits until the worker, started with the service's configuration, is blocked on its queue's marker. */
    private void awaitWaitingForJobs(Worker worker, String workerId) {
        WorkerOptions options = WorkerOptions.from(config, workerId);
        await().atMost(TIMEOUT).until(() -> MarkerWaits.blockedOnMarker(redis, worker.queue(), options));
    }
}
