package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ServiceProcess;
import dev.fencedqueue.testing.SseClient;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Seed 000's race with real processes (section 8.3, method 1): two packaged instances share one Redis;
 * instance A runs a research job and is frozen with SIGSTOP mid-stream until instance B takes the job over,
 * then woken with SIGCONT. A's late writes must all be rejected, A must close its LLM stream, readers must
 * see one epoch at a time, and the job must end once, completed by B.
 */
class ZombieProcessIT {

    private static final List<String> TERMINAL = List.of("completed", "failed", "aborted");

    /** Locks of about a second, as in the in-JVM tests, so that a frozen instance loses its job quickly. */
    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(Map.of(
            "fq.worker.lock-duration", "1s",
            "fq.worker.lock-renew-interval", "300ms",
            "fq.worker.stalled-interval", "500ms",
            "fq.worker.drain-delay", "1s",
            "fq.simulator.step-interval", "200ms",
            "quarkus.log.category.\"dev.fencedqueue\".level", "DEBUG"));

    @Test
    void stoppedProcessIsFencedOffAfterAnotherProcessTakesOver() {
        // A's research stream lasts 30 s, far longer than A runs before it is frozen (B's start-up included),
        // so A is mid-stream when it wakes up. B's own stream is short, to keep the test short.
        ServiceProcess a = fleet.launch("proc-A", Map.of("fq.simulator.steps", "150"));
        String jobId = a.request().contentType(ContentType.JSON).body(Map.of("query", "zombie race across processes"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        await("A runs the job in epoch 1").atMost(Duration.ofSeconds(10)).until(() -> {
            JsonPath status = status(a, jobId);
            return "active".equals(status.getString("state")) && status.getInt("fencingToken") == 1
                    && "proc-A".equals(status.getString("workerId"));
        });

        // B starts only now, so it cannot take the job first; the reader follows B, as a frozen A serves nobody.
        ServiceProcess b = fleet.launch("proc-B", Map.of("fq.simulator.steps", "20"));
        try (SseClient sse = SseClient.open(b.url("/research/stream/" + jobId))) {
            await("a progress event of epoch 1 on B's stream").atMost(Duration.ofSeconds(10))
                    .until(() -> sse.events().stream().anyMatch(e -> "progress".equals(e.event()) && token(e) == 1));
            assertThat(status(b, jobId).getString("state")).as("A still runs the job when it is frozen").isEqualTo("active");

            a.freeze();
            await("B takes the job over in epoch 2").atMost(Duration.ofSeconds(15)).until(() -> {
                JsonPath status = status(b, jobId);
                return status.getInt("fencingToken") == 2 && "proc-B".equals(status.getString("workerId"));
            });
            a.thaw();

            // A learns it lost the job (rejected write, lock renewal or revoke notice) and closes its LLM stream.
            await("A closes its simulator stream early").atMost(Duration.ofSeconds(10))
                    .until(() -> simulatorCounts(a, jobId).getInt("closedEarly") == 1);
            await("B's stream ends").atMost(Duration.ofSeconds(30)).until(() -> sse.ended().isDone());
            assertThat(sse.ended()).isCompleted();
            assertSseShowsResetThenOnlyNewEpoch(sse.events());
        }

        List<Map<String, Object>> history = b.request().get("/research/history/" + jobId).jsonPath().getList("$");
        int firstOfB = indexOfFirst(history, 2);
        assertThat(firstOfB).as("the first event of epoch 2").isPositive();
        assertThat(history.subList(firstOfB, history.size()))
                .as("no write of epoch 1 lands after epoch 2 started")
                .allSatisfy(event -> assertThat(event.get("fencingToken")).isEqualTo(2));
        assertThat(history).filteredOn(e -> TERMINAL.contains(e.get("event"))).hasSize(1);

        List<Map<String, Object>> valid = b.request().get("/research/valid-history/" + jobId).jsonPath().getList("$");
        assertThat(valid).isNotEmpty().allSatisfy(event -> assertThat(event.get("fencingToken")).isEqualTo(2));
        assertThat(valid.get(0).get("event")).isEqualTo("started");
        assertThat(valid.get(valid.size() - 1).get("event")).isEqualTo("completed");
        assertThat(valid).extracting(e -> e.get("workerId")).containsOnly("proc-B");

        JsonPath status = status(a, jobId);
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getInt("fencingToken")).isEqualTo(2);
        assertThat(status.getString("workerId")).isEqualTo("proc-B");

        JsonPath countsOfA = simulatorCounts(a, jobId);
        assertThat(countsOfA.getInt("opened")).isEqualTo(1);
        assertThat(countsOfA.getInt("completed")).isZero();
        assertThat(countsOfA.getInt("closedEarly")).isEqualTo(1);
        JsonPath countsOfB = simulatorCounts(b, jobId);
        assertThat(countsOfB.getInt("opened")).isEqualTo(1);
        assertThat(countsOfB.getInt("completed")).isEqualTo(1);
        assertThat(countsOfB.getInt("closedEarly")).isZero();
    }

    private static void assertSseShowsResetThenOnlyNewEpoch(List<SseClient.Message> events) {
        List<String> types = events.stream().map(SseClient.Message::event).toList();
        assertThat(types).containsOnlyOnce("reset");
        int reset = types.indexOf("reset");
        assertThat(token(events.get(reset))).isEqualTo(2);
        assertThat(events.subList(0, reset)).isNotEmpty().allSatisfy(e -> assertThat(token(e)).isEqualTo(1));
        assertThat(events.subList(reset + 1, events.size())).isNotEmpty()
                .allSatisfy(e -> assertThat(token(e)).isEqualTo(2));
        assertThat(events.get(reset + 1).event()).isEqualTo("started");
        assertThat(types.get(types.size() - 1)).isEqualTo("completed");
        assertThat(types).filteredOn(TERMINAL::contains).hasSize(1);
    }

    private static int token(SseClient.Message event) {
        return JsonPath.from(event.data()).getInt("fencingToken");
    }

    private static int indexOfFirst(List<Map<String, Object>> history, int token) {
        for (int i = 0; i < history.size(); i++) {
            if (Integer.valueOf(token).equals(history.get(i).get("fencingToken"))) {
                return i;
            }
        }
        return -1;
    }

    private static JsonPath status(ServiceProcess process, String jobId) {
        return process.request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    private static JsonPath simulatorCounts(ServiceProcess process, String jobId) {
        return process.request().get("/simulator/stats").then().statusCode(200).extract().jsonPath()
                .setRootPath("jobs.'" + jobId + "'");
    }
}
