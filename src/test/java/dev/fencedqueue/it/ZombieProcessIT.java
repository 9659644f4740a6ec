package dev.fencedqueue.it;

import static dev.fencedqueue.testing.ResearchTestSupport.fencingTokens;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
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
 * The zombie race with real processes: two packaged instances share one Redis;
 * instance A runs a research job and is frozen with SIGSTOP mid-stream until instance B takes the job over,
 * then woken with SIGCONT. A's late writes must all be rejected, A must close its LLM stream, readers must
 * see one epoch at a time, and the job must end once, completed by B.
 */
class ZombieProcessIT {

    private static final List<String> TERMINAL = List.of("completed", "failed", "aborted");

    /** Locks of about a second, as in the in-JVM tests, so that a frozen instance loses its job quickly. */
    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(ProcessFleet.SHORT_LOCKS);

    @Test
    void stoppedProcessIsFencedOffAfterAnotherProcessTakesOver() {
        // A's research stream lasts 30 s, far longer than A runs before it is frozen (B's start-up included),
        // so A is mid-stream when it wakes up. B's own stream is short, to keep the test short.
        ServiceProcess a = fleet.launch("proc-A", Map.of("fq.simulator.research.steps", "150"));
        String jobId = a.request().contentType(ContentType.JSON).body(Map.of("query", "zombie race across processes"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        long epochOfA = await("A runs the job in its first epoch").atMost(TIMEOUT)
                .until(() -> status(a, jobId), status -> "active".equals(status.getString("state"))
                        && status.getInt("attemptsStarted") == 1 && "proc-A".equals(status.getString("workerId")))
                .getLong("fencingToken");
        assertThat(epochOfA).isPositive();

        // B starts only now, so it cannot take the job first; the reader follows B, as a frozen A serves nobody.
        ServiceProcess b = fleet.launch("proc-B", Map.of("fq.simulator.research.steps", "20"));
        long epochOfB;
        try (SseClient sse = SseClient.open(b.url("/research/stream/" + jobId))) {
            await("a progress event of A's epoch on B's stream").atMost(TIMEOUT).until(() -> sse.events()
                    .stream().anyMatch(e -> "progress".equals(e.event()) && e.fencingToken() == epochOfA));
            assertThat(status(b, jobId).getString("state")).as("A still runs the job when it is frozen").isEqualTo("active");

            a.freeze();
            epochOfB = await("B takes the job over in a newer epoch").atMost(Duration.ofSeconds(15))
                    .until(() -> status(b, jobId), status -> status.getLong("fencingToken") > epochOfA
                            && "proc-B".equals(status.getString("workerId")))
                    .getLong("fencingToken");
            a.thaw();

            // A learns it lost the job (rejected write, lock renewal or revoke notice) and closes its LLM stream.
            await("A closes its simulator stream early").atMost(TIMEOUT)
                    .until(() -> simulatorCounts(a, jobId).getInt("closedEarly") == 1);
            await("B's stream ends").atMost(Duration.ofSeconds(30)).until(() -> sse.ended().isDone());
            assertThat(sse.ended()).isCompleted();
            assertSseShowsResetThenOnlyNewEpoch(sse.events(), epochOfA, epochOfB);
        }

        List<Map<String, Object>> history = b.request().get("/research/history/" + jobId).jsonPath().getList("$");
        List<Long> tokens = fencingTokens(history);
        int firstOfB = tokens.indexOf(epochOfB);
        assertThat(firstOfB).as("the first event of B's epoch").isPositive();
        assertThat(tokens.subList(0, firstOfB)).as("A's run came first").containsOnly(epochOfA);
        assertThat(tokens.subList(firstOfB, tokens.size()))
                .as("no write of A's epoch lands after B's epoch started").containsOnly(epochOfB);
        assertThat(history).filteredOn(e -> TERMINAL.contains(e.get("event"))).hasSize(1);

        List<Map<String, Object>> valid = b.request().get("/research/valid-history/" + jobId).jsonPath().getList("$");
        assertThat(fencingTokens(valid)).isNotEmpty().containsOnly(epochOfB);
        assertThat(valid.get(0).get("event")).isEqualTo("started");
        assertThat(valid.get(valid.size() - 1).get("event")).isEqualTo("completed");
        assertThat(valid).extracting(e -> e.get("workerId")).containsOnly("proc-B");

        JsonPath status = status(a, jobId);
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getLong("fencingToken")).isEqualTo(epochOfB);
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

    private static void assertSseShowsResetThenOnlyNewEpoch(List<SseClient.Message> events, long oldEpoch,
            long newEpoch) {
        List<String> types = events.stream().map(SseClient.Message::event).toList();
        assertThat(types).containsOnlyOnce("reset");
        int reset = types.indexOf("reset");
        assertThat(events.get(reset).fencingToken()).isEqualTo(newEpoch);
        assertThat(events.subList(0, reset)).isNotEmpty().extracting(SseClient.Message::fencingToken)
                .containsOnly(oldEpoch);
        assertThat(events.subList(reset + 1, events.size())).isNotEmpty().extracting(SseClient.Message::fencingToken)
                .containsOnly(newEpoch);
        assertThat(events.get(reset + 1).event()).isEqualTo("started");
        assertThat(types.get(types.size() - 1)).isEqualTo("completed");
        assertThat(types).filteredOn(TERMINAL::contains).hasSize(1);
    }

    private static JsonPath status(ServiceProcess process, String jobId) {
        return process.request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    private static JsonPath simulatorCounts(ServiceProcess process, String jobId) {
        return process.request().get("/simulator/stats").then().statusCode(200).extract().jsonPath()
                .setRootPath("jobs.'" + jobId + "'");
    }
}
