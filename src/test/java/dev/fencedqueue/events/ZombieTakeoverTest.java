package dev.fencedqueue.events;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.simulator.SimulatorStats;
import dev.fencedqueue.testing.GatedProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SimulatorStreams;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * The zombie race in one JVM: worker A stops renewing (frozen, as if paused by GC) until worker B takes
 * the job over, then A tries to write. A's writes are rejected and A stops, the job ends once, in B's epoch, and a
 * reader sees a {@code reset} and then only B's run (docs/architecture.md#the-fencing-design).
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ZombieTakeoverTest extends ResearchTestSupport {

    @Test
    void staleWorkerIsFencedOffAndReadersSeeOnlyTheNewRun() {
        GatedProcessor processorA = new GatedProcessor(research);
        GatedProcessor processorB = new GatedProcessor(research);
        Worker workerA = worker(processorA, "worker-A");
        Worker workerB = worker(processorB, "worker-B");
        workerA.start();

        String jobId = startJob("zombie race");
        long epochOfA;
        long epochOfB;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(TIMEOUT).until(() -> sse.events().stream().anyMatch(e -> "progress".equals(e.event())));
            epochOfA = sse.events().get(0).fencingToken();

            // A is paused: no renewal, no revoke notice, and its writes are held back.
            processorA.close();
            freeze(workerA);
            simulatorAtFullSpeed(); // B's run, which nothing interrupts; A's stream keeps its pace
            workerB.start();
            epochOfB = await().atMost(TIMEOUT).until(() -> status(jobId), status ->
                    status.getLong("fencingToken") > epochOfA && "worker-B".equals(status.getString("workerId")))
                    .getLong("fencingToken");

            // A wakes up and tries to write: rejected inside Redis, so it cancels and closes its LLM call.
            processorA.open();
            await().atMost(TIMEOUT).until(() -> processorA.rejectedWrites() >= 1);
            await().atMost(TIMEOUT).until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);
            assertThat(workerA.activeJobIds()).doesNotContain(jobId);
            assertThat(workerA.stats().rejectedWrites()).isGreaterThanOrEqualTo(1);

            await().atMost(Duration.ofSeconds(20)).until(() -> sse.ended().isDone());
            assertSseShowsResetThenOnlyNewEpoch(sse.events(), epochOfA, epochOfB);
        }

        List<Map<String, Object>> history = given().get("/research/history/" + jobId).jsonPath().getList("$");
        List<Long> tokens = fencingTokens(history);
        int firstOfB = tokens.indexOf(epochOfB);
        assertThat(firstOfB).isPositive();
        assertThat(tokens.subList(0, firstOfB)).as("A's run came first").containsOnly(epochOfA);
        assertThat(tokens.subList(firstOfB, tokens.size()))
                .as("no write of A's epoch lands after B's epoch started").containsOnly(epochOfB);
        assertThat(history).filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.get("event"))).hasSize(1);

        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(fencingTokens(valid)).isNotEmpty().containsOnly(epochOfB);
        assertThat(valid.get(0).get("event")).isEqualTo("started");
        assertThat(valid.get(valid.size() - 1).get("event")).isEqualTo("completed");
        assertThat(valid).extracting(e -> e.get("workerId")).containsOnly("worker-B");

        JsonPath status = status(jobId);
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getLong("fencingToken")).isEqualTo(epochOfB);
        assertThat(SimulatorStreams.of(jobId)).isEqualTo(new SimulatorStats.Counts(2, 1, 1));
    }

    @Test
    void clientResumingWithLastEventIdGetsResetWhenANewerRunTookOverMeanwhile() {
        Worker workerA = worker(research, "worker-A");
        Worker workerB = worker(research, "worker-B");
        workerA.start();
        String jobId = startJob("resume across runs");

        String lastSeen;
        long epochOfA;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(TIMEOUT).until(() -> sse.events().stream().filter(e -> "progress".equals(e.event())).count() >= 2);
            List<SseClient.Message> seen = sse.events();
            lastSeen = seen.get(seen.size() - 1).id();
            epochOfA = seen.get(0).fencingToken();
        }
        freeze(workerA);
        simulatorAtFullSpeed();
        workerB.start();
        long epochOfB = await().atMost(TIMEOUT)
                .until(() -> status(jobId).getLong("fencingToken"), token -> token > epochOfA);

        try (SseClient resumed = SseClient.open(base + "research/stream/" + jobId, lastSeen)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> resumed.ended().isDone());
            List<SseClient.Message> events = resumed.events();
            assertThat(events.get(0).event()).isEqualTo("reset");
            assertThat(events.get(0).id()).as("a reset carries no id, so a later resume goes on after the last real event").isNull();
            assertThat(events.get(0).fencingToken()).isEqualTo(epochOfB);
            assertThat(events.get(1).event()).isEqualTo("started");
            assertThat(events.subList(1, events.size())).extracting(SseClient.Message::fencingToken)
                    .containsOnly(epochOfB);
            assertThat(events.get(events.size() - 1).event()).isEqualTo("completed");
        }
    }

    @Test
    void idleStreamSendsKeepAliveComments() {
        String jobId = startJob("nobody runs me");
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(TIMEOUT).until(() -> sse.messages().stream().filter(SseClient.Message::isComment).count() >= 2);
            assertThat(sse.events()).isEmpty();
            assertThat(sse.ended()).isNotDone();
        }
        given().post("/research/abort/" + jobId).then().statusCode(200);
    }

    /** Asserts that the stream shows {@code oldEpoch}'s events, a {@code reset}, then only {@code newEpoch}'s. */
    static void assertSseShowsResetThenOnlyNewEpoch(List<SseClient.Message> events, long oldEpoch, long newEpoch) {
        List<String> types = events.stream().map(SseClient.Message::event).toList();
        assertThat(types).containsOnlyOnce("reset");
        int reset = types.indexOf("reset");
        assertThat(events.get(reset).fencingToken()).isEqualTo(newEpoch);
        assertThat(events.subList(0, reset)).extracting(SseClient.Message::fencingToken).containsOnly(oldEpoch);
        assertThat(events.subList(reset + 1, events.size())).isNotEmpty()
                .extracting(SseClient.Message::fencingToken).containsOnly(newEpoch);
        assertThat(events.get(reset + 1).event()).isEqualTo("started");
        assertThat(types.get(types.size() - 1)).isEqualTo("completed");
        assertThat(types.stream().filter(t -> List.of("completed", "failed", "aborted").contains(t))).hasSize(1);
    }
}
