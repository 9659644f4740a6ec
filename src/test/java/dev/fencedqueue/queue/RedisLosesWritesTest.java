package dev.fencedqueue.queue;

import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.CuttableProxy;
import dev.fencedqueue.testing.GatedProcessor;
import dev.fencedqueue.testing.RedisFaultsResource;
import dev.fencedqueue.testing.RedisFaultsResource.RedisFaults;
import dev.fencedqueue.testing.RedisProcess;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The fence holds when Redis loses acknowledged writes, for real: a {@code redis-server} killed
 * with {@code SIGKILL} comes back from a snapshot taken before a takeover, and a replica that never received a
 * takeover is promoted. The run Redis forgot must be fenced off, the next run must get a greater token than the
 * forgotten one, and a reader who saw the forgotten run must be shown a {@code reset} before the next one (only the
 * current epoch writes, tokens only grow, readers see one epoch at a time: docs/architecture.md#the-fencing-design).
 * The last case covers a token handed out twice, which only a clock running behind produces.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisFaultsResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RedisLosesWritesTest extends ResearchTestSupport {

    private static final Duration STEP = Duration.ofSeconds(20);

    @InjectRedis
    RedisFaults redis;

    @Inject
    Queues queues;

    @Test
    void aRunWhoseActivationRedisLostIsFencedOffAndItsReaderSeesAResetBeforeTheNextRun() {
        // Redis killed with SIGKILL and restarted from a snapshot taken before the takeover, as a Redis without AOF
        // (or with a lost AOF tail) comes back after a crash.
        RedisProcess master = redis.master();
        loseTheTakeover("a takeover a restart forgets", () -> master.call("SAVE"), () -> {
            master.kill();
            master.restart();
        });
    }

    @Test
    void aRunWhoseActivationTheNewMasterNeverReceivedIsFencedOff() {
        // A failover to a replica that had not received the takeover: the replication link is cut (a partition)
        // after run A reached the replica, the replica is promoted, the old master dies, and the service's address
        // now leads to the new master (as a virtual IP or a DNS name does after a failover).
        RedisProcess master = redis.master();
        RedisProcess replica = RedisProcess.start(redis.vertx(), "--save", "", "--appendonly", "no");
        CuttableProxy link = CuttableProxy.start(redis.vertx(), master.port());
        try {
            replica.replicaOf(link.port());
            loseTheTakeover("a takeover the replica never received", () -> {
                // Everything the master has, run A included, reached the replica (its initial sync may still be under
                // way: a WAIT on a connection without writes would not tell).
                long offset = replication(master, "master_repl_offset");
                await("run A reached the replica").atMost(STEP).until(() -> "up".equals(replicationText(replica,
                        "master_link_status")) && replication(replica, "slave_repl_offset") >= offset);
                link.drop(true);
                link.cutAll();
            }, () -> {
                replica.call("REPLICAOF", "NO", "ONE");
                master.kill();
                redis.proxy().retarget(replica.port());
                redis.proxy().cutAll();
            });
        } finally {
            // The next test of this class finds the service on its first server again.
            master.restart();
            redis.proxy().retarget(master.port());
            redis.proxy().cutAll();
            link.close();
            replica.close();
        }
    }

    /**
     * Run A, then run B takes the job over (a reader following both), then Redis loses B's activation and everything
     * after it; run C follows. B's writes must be rejected, C's token must be greater than B's, and the reader must see
     * a reset before C's first event.
     *
     * @param beforeTakeover what makes the loss possible, done while run A is the job's only run
     * @param loseIt what loses the takeover, done while B is running with its writes held
     */
    private void loseTheTakeover(String query, Runnable beforeTakeover, Runnable loseIt) {
        GatedProcessor processorA = new GatedProcessor(research);
        GatedProcessor processorB = new GatedProcessor(research);
        Worker workerA = worker(processorA, "worker-A");
        Worker workerB = worker(processorB, "worker-B");
        Worker workerC = worker(research, "worker-C");
        workerA.start();
        String jobId = startJob(query);

        List<SseClient.Message> seen;
        long tokenA;
        long tokenB;
        long tokenC;
        try (SseClient reader = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(STEP).until(() -> !progressOf(reader, "worker-A").isEmpty());
            tokenA = status(jobId).getLong("fencingToken");
            beforeTakeover.run();

            processorA.close();
            freeze(workerA);
            workerB.start();
            await().atMost(STEP).until(() -> "worker-B".equals(status(jobId).getString("workerId")));
            tokenB = status(jobId).getLong("fencingToken");
            await("the reader saw the run Redis will forget").atMost(STEP)
                    .until(() -> !progressOf(reader, "worker-B").isEmpty());
            processorB.close(); // B runs on; its writes wait
            freeze(workerB);

            int acceptedFromB = processorB.acceptedWrites();
            loseIt.run();
            await("Redis came back without the takeover").atMost(STEP).ignoreExceptions()
                    .until(() -> status(jobId).getLong("fencingToken") == tokenA);

            simulatorAtFullSpeed(); // run C, which nothing interrupts
            workerC.start();
            await("a new run after the loss").atMost(STEP).ignoreExceptions()
                    .until(() -> "worker-C".equals(status(jobId).getString("workerId")));
            tokenC = status(jobId).getLong("fencingToken");
            assertThat(tokenC).as("a token handed out after the loss is greater than every one before it")
                    .isGreaterThan(tokenB);

            processorB.open();
            processorA.open();
            await("the forgotten run's writes are rejected").atMost(STEP)
                    .until(() -> processorB.rejectedWrites() >= 1 && processorA.rejectedWrites() >= 1);
            assertThat(processorB.acceptedWrites()).as("no write of the forgotten run accepted after the loss")
                    .isEqualTo(acceptedFromB);
            await().atMost(STEP.multipliedBy(2)).until(() -> reader.ended().isDone());
            seen = reader.events();
        }

        // The reader: run A, reset, run B, then a reset before run C, and nothing of A or B after it.
        int resetToC = indexOf(seen, "reset", tokenC);
        assertThat(resetToC).as("a reset announces the run after the loss: %s", types(seen)).isPositive();
        assertThat(seen.subList(0, resetToC)).extracting(RedisLosesWritesTest::token).contains(tokenB);
        assertThat(seen.subList(resetToC + 1, seen.size())).isNotEmpty()
                .allSatisfy(event -> assertThat(token(event)).isEqualTo(tokenC));
        assertThat(seen.get(resetToC + 1).event()).isEqualTo("started");
        assertThat(seen.get(seen.size() - 1).event()).isEqualTo("completed");
        assertThat(seen).filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.event())).hasSize(1);

        // A reader resuming from the forgotten run's last event, an entry the stream no longer holds, starts over.
        String forgotten = seen.get(resetToC - 1).id();
        try (SseClient resumed = SseClient.open(base + "research/stream/" + jobId, forgotten)) {
            await().atMost(STEP).until(() -> resumed.ended().isDone());
            List<SseClient.Message> again = resumed.events();
            assertThat(again.get(0).event()).as("resumed after %s: %s", forgotten, types(again)).isEqualTo("reset");
            assertThat(again.get(1).event()).isEqualTo("started");
            assertThat(again.subList(1, again.size())).allSatisfy(event -> assertThat(token(event)).isEqualTo(tokenC));
        }

        List<Map<String, Object>> history = given().get("/research/history/" + jobId).jsonPath().getList("$");
        assertThat(history).extracting(e -> ((Number) e.get("fencingToken")).longValue())
                .as("what Redis keeps: runs A and C, nothing of the forgotten run").doesNotContain(tokenB)
                .contains(tokenA, tokenC);
        JsonPath status = status(jobId);
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getString("workerId")).isEqualTo("worker-C");
    }

    @Test
    void aNewAttemptHandedARepeatedTokenFencesOffTheOldAttemptAndItsReaderSeesAReset() {
        // The token alone cannot tell two runs apart when Redis hands one out twice: after a failover to a replica
        // whose clock is behind the old master's by more than the failover took. This emulates exactly that case,
        // which a real clock cannot be made to produce here: the fence key is set ahead of the clock before the
        // first run, and set back after it, as the replica would have it.
        GatedProcessor processorB = new GatedProcessor(research);
        Worker workerB = worker(processorB, "worker-B");
        Worker workerC = worker(research, "worker-C");
        String jobId = startJob("one token, two attempts");
        QueueKeys keys = queues.keys(research.queue());
        String ahead = Long.toString(System.currentTimeMillis() + Duration.ofHours(1).toMillis());
        redis.master().call("HSET", keys.job(jobId), "fencingToken", ahead);

        List<SseClient.Message> seen;
        try (SseClient reader = SseClient.open(base + "research/stream/" + jobId)) {
            workerB.start();
            await().atMost(STEP).until(() -> !progressOf(reader, "worker-B").isEmpty());
            long tokenB = status(jobId).getLong("fencingToken");
            processorB.close();
            freeze(workerB);

            redis.master().call("HSET", keys.job(jobId), "fencingToken", ahead); // B's activation forgotten ...
            redis.master().call("HDEL", keys.job(jobId), "lockedUntil"); // ... and its lock gone with it
            workerC.start();
            await().atMost(STEP).until(() -> "worker-C".equals(status(jobId).getString("workerId")));
            assertThat(status(jobId).getLong("fencingToken")).as("the same token handed out again").isEqualTo(tokenB);

            int acceptedFromB = processorB.acceptedWrites();
            processorB.open();
            await("the old attempt's writes are rejected by its attempt").atMost(STEP)
                    .until(() -> processorB.rejectedWrites() >= 1);
            assertThat(processorB.acceptedWrites()).isEqualTo(acceptedFromB);
            await().atMost(STEP.multipliedBy(2)).until(() -> reader.ended().isDone());
            seen = reader.events();
        }

        List<String> types = seen.stream().map(SseClient.Message::event).toList();
        assertThat(types).containsOnlyOnce("reset");
        int reset = types.indexOf("reset");
        assertThat(seen.subList(0, reset)).isNotEmpty().allSatisfy(e -> assertThat(e.data()).contains("worker-B"));
        assertThat(seen.get(reset + 1).event()).isEqualTo("started");
        assertThat(seen.subList(reset + 1, seen.size())).allSatisfy(e -> assertThat(e.data()).contains("worker-C"));
        assertThat(types.get(types.size() - 1)).isEqualTo("completed");
    }

    private static List<SseClient.Message> progressOf(SseClient reader, String workerId) {
        return reader.events().stream().filter(e -> "progress".equals(e.event()) && e.data().contains(workerId))
                .toList();
    }

    private static List<String> types(List<SseClient.Message> events) {
        return events.stream().map(e -> e.event() + "@" + token(e)).toList();
    }

    private static int indexOf(List<SseClient.Message> events, String type, long token) {
        for (int i = 0; i < events.size(); i++) {
            if (type.equals(events.get(i).event()) && token(events.get(i)) == token) {
                return i;
            }
        }
        return -1;
    }

    private static long token(SseClient.Message event) {
        return event.fencingToken();
    }

    /** @return a numeric field of the server's {@code INFO replication} */
    private static long replication(RedisProcess server, String field) {
        return Long.parseLong(replicationText(server, field));
    }

    /** @return a field of the server's {@code INFO replication}, or {@code ""} when absent */
    private static String replicationText(RedisProcess server, String field) {
        for (String line : server.call("INFO", "replication").toString().split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).strip();
            }
        }
        return "";
    }
}
