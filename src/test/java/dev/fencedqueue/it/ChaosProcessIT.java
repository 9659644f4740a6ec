package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.fencedqueue.suites.TestForks;
import dev.fencedqueue.testing.CuttableProxy;
import dev.fencedqueue.testing.RedisProcess;
import dev.fencedqueue.testing.ServiceProcess;
import dev.fencedqueue.testing.SseClient;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The chaos suite, on packaged service processes and real faults. Each case asserts the fencing invariants it
 * touches (docs/architecture.md#the-fencing-design): every job answered {@code 202} ends exactly once, a reader never
 * sees an older epoch after a newer one, and a process that lost its jobs stops writing. Timings are generous (CI
 * machines are loaded); each case prints what it measured.
 */
class ChaosProcessIT {

    private static final List<String> TERMINAL = List.of("completed", "failed", "aborted");
    private static final Duration STEP = Duration.ofSeconds(30);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(ProcessFleet.SHORT_LOCKS);

    private Vertx vertx;

    @BeforeEach
    void vertx() {
        vertx = Vertx.vertx();
    }

    @AfterEach
    void closeVertx() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void killMinus9OfAnInstanceRunningTenJobsHandsEveryOneOverAndEachEndsOnce() {
        ServiceProcess a = fleet.launch("chaos-A", Map.of("fq.worker.concurrency", "10", "fq.simulator.research.steps", "150"));
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            jobs.add(start(a, "job " + i));
        }
        await("A runs all ten").atMost(STEP).until(() -> jobs.stream().allMatch(id -> {
            JsonPath status = status(a, id);
            return "active".equals(status.getString("state")) && "chaos-A".equals(status.getString("workerId"));
        }));
        ServiceProcess b = fleet.launch("chaos-B", Map.of("fq.worker.concurrency", "10", "fq.simulator.research.steps", "10"));

        long killedAt = System.nanoTime();
        long killedAtMillis = System.currentTimeMillis();
        a.kill();
        await("B took all ten over").atMost(STEP).until(() -> jobs.stream()
                .allMatch(id -> "chaos-B".equals(status(b, id).getString("workerId"))));
        long seenMs = (System.nanoTime() - killedAt) / 1_000_000;
        // When B's runs started (processedOn: Redis's clock at the activation, one machine here), without the polling.
        long lastStartMs = jobs.stream().mapToLong(id -> status(b, id).getLong("processedOn")).max().orElseThrow()
                - killedAtMillis;
        System.out.printf("chaos: kill -9 of an instance running 10 jobs: the last of B's runs started %d ms after "
                + "the kill, all ten seen taken over after %d ms (lock 1000 ms renewed every 300 ms + stalled "
                + "interval 500 ms)%n", lastStartMs, seenMs);
        assertThat(lastStartMs).as("taken over within a few lock durations").isBetween(0L, 15_000L);

        await("all ten end").atMost(STEP).until(() -> jobs.stream().allMatch(id -> "completed".equals(status(b, id)
                .getString("state"))));
        for (String id : jobs) {
            assertEndedOnceInTheLastEpoch(b, id);
        }
    }

    @Test
    void aRedisLinkFrozenForHalfTheLockDurationHandsNothingOver() {
        // A lock of 8 s renewed every second: a 4 s freeze leaves it valid, with 3 s to spare for a stalled machine
        // (the test's own stalls only make the freeze longer).
        CuttableProxy link = CuttableProxy.start(vertx, fleet.redisPort());
        try (link) {
            Map<String, String> slowLocks = Map.of("fq.worker.lock.duration", "8s", "fq.worker.lock.renew-interval", "1s",
                    "fq.simulator.research.steps", "30");
            ServiceProcess a = fleet.launch("chaos-A", with(slowLocks, "quarkus.redis.hosts", via(link)));
            String jobId = start(a, "a short freeze");
            long token = await().atMost(STEP).until(() -> status(a, jobId), s -> "active".equals(s.getString("state")))
                    .getLong("fencingToken");
            ServiceProcess b = fleet.launch("chaos-B", slowLocks);

            link.freeze(true);
            await("B sees the job still A's during the freeze").during(Duration.ofSeconds(4)).atMost(STEP)
                    .until(() -> status(b, jobId).getLong("fencingToken") == token);
            link.freeze(false);

            await().atMost(STEP).until(() -> "completed".equals(status(b, jobId).getString("state")));
            JsonPath status = status(b, jobId);
            assertThat(status.getString("workerId")).as("no handover").isEqualTo("chaos-A");
            assertThat(status.getInt("attemptsStarted")).as("no second run").isEqualTo(1);
            assertThat(status.getLong("fencingToken")).isEqualTo(token);
            assertEndedOnceInTheLastEpoch(b, jobId);
        }
    }

    @Test
    void aRedisLinkFrozenForTwiceTheLockDurationHandsOverCleanlyAndTheFrozenWritesAreRejected() {
        CuttableProxy link = CuttableProxy.start(vertx, fleet.redisPort());
        try (link) {
            ServiceProcess a = fleet.launch("chaos-A", Map.of("quarkus.redis.hosts", via(link),
                    "fq.simulator.research.steps", "100"));
            String jobId = start(a, "a long freeze");
            long tokenA = await().atMost(STEP).until(() -> status(a, jobId), s -> "active".equals(s.getString("state")))
                    .getLong("fencingToken");
            ServiceProcess b = fleet.launch("chaos-B", Map.of("fq.simulator.research.steps", "10"));
            try (SseClient reader = SseClient.open(b.url("/research/stream/" + jobId))) {
                await().atMost(STEP).until(() -> reader.events().stream().anyMatch(e -> e.fencingToken() == tokenA
                        && "progress".equals(e.event())));

                link.freeze(true);
                long frozenAt = System.nanoTime();
                long tokenB = await("B takes over while A's link is frozen").atMost(STEP)
                        .until(() -> status(b, jobId), s -> "chaos-B".equals(s.getString("workerId")))
                        .getLong("fencingToken");
                await("2x the lock duration").atMost(STEP).until(() -> System.nanoTime() - frozenAt >= 2_000_000_000L);
                link.freeze(false);

                await("A learns it lost the job and closes its LLM stream").atMost(STEP)
                        .until(() -> simulatorCounts(a, jobId).getInt("closedEarly") == 1);
                await().atMost(STEP).until(() -> reader.ended().isDone());
                List<SseClient.Message> seen = reader.events();
                int reset = seen.stream().map(SseClient.Message::event).toList().indexOf("reset");
                assertThat(reset).as("a reset before B's run").isPositive();
                assertThat(seen.subList(reset, seen.size())).extracting(SseClient.Message::fencingToken)
                        .containsOnly(tokenB);
                assertThat(seen.subList(0, reset)).extracting(SseClient.Message::fencingToken).containsOnly(tokenA);
            }
            assertEndedOnceInTheLastEpoch(b, jobId);
            assertThat(status(b, jobId).getString("workerId")).isEqualTo("chaos-B");
        }
    }

    @Test
    void redisKilledUnderLoadWithAppendfsyncAlwaysLosesNoAcceptedJobAndEverythingRecovers() {
        RedisProcess redis = RedisProcess.start(vertx, "--appendonly", "yes", "--appendfsync", "always", "--save", "");
        try (redis) {
            Map<String, String> config = Map.of("quarkus.redis.hosts", redis.uri(), "fq.worker.concurrency", "8",
                    "fq.simulator.research.steps", "8", "fq.simulator.research.step-interval", "100ms");
            ServiceProcess a = fleet.start("chaos-A", config, Map.of());
            ServiceProcess b = fleet.start("chaos-B", config, Map.of());
            fleet.awaitReady(a, b);
            List<ServiceProcess> both = List.of(a, b);

            Map<String, ServiceProcess> accepted = new ConcurrentHashMap<>();
            AtomicReference<String> newest = new AtomicReference<>();
            List<Integer> refusals = new CopyOnWriteArrayList<>();
            AtomicBoolean submitting = new AtomicBoolean(true);
            AtomicInteger sent = new AtomicInteger();
            Thread submitter = new Thread(() -> {
                while (submitting.get()) {
                    ServiceProcess to = both.get(sent.getAndIncrement() % 2);
                    try {
                        var response = to.request().contentType(ContentType.JSON).body(Map.of("query", "load " + sent))
                                .post("/research/start");
                        if (response.statusCode() == 202) {
                            String id = response.jsonPath().getString("jobId");
                            accepted.put(id, to);
                            newest.set(id);
                        } else {
                            refusals.add(response.statusCode());
                        }
                    } catch (RuntimeException e) {
                        refusals.add(-1);
                    }
                }
            }, "chaos-submitter");
            submitter.start();
            await().atMost(STEP).until(() -> accepted.size() >= 20);
            // The newest job still waits behind the others: its reader follows it across the outage.
            String followed = newest.get();
            try (SseClient reader = SseClient.open(a.url("/research/stream/" + followed))) {
                assertThat(reader.status()).succeedsWithin(STEP).isEqualTo(200);
                redis.kill();
                int acceptedBefore = accepted.size();
                await("readiness DOWN while Redis is down").atMost(STEP).until(() -> both.stream()
                        .allMatch(p -> p.request().get("/q/health/ready").statusCode() == 503));
                await("submissions refused while Redis is down").atMost(STEP).until(() -> refusals.size() >= 3);
                redis.restart();
                await("readiness UP again, without a restart of the service").atMost(STEP).until(() -> both.stream()
                        .allMatch(p -> p.request().get("/q/health/ready").statusCode() == 200));
                await("accepting again").atMost(STEP).until(() -> accepted.size() >= acceptedBefore + 20);
                submitting.set(false);
                submitter.join(STEP.toMillis());

                System.out.printf("chaos: Redis SIGKILL under load (appendfsync always): %d jobs accepted, %d refused "
                        + "while down%n", accepted.size(), refusals.size());
                await("every accepted job ends").atMost(Duration.ofSeconds(120)).until(() -> accepted.keySet().stream()
                        .allMatch(id -> TERMINAL.contains(status(a, id).getString("state"))));
                // Every job ends exactly once. A job whose attempts the outage spent may end failed rather than
                // completed (at least once, never lost); the suite prints each such job with its reason.
                for (String id : accepted.keySet()) {
                    JsonPath status = status(b, id);
                    assertThat(status.getString("state")).as(id).isIn("completed", "failed");
                    if ("failed".equals(status.getString("state"))) {
                        System.out.printf("chaos: Redis SIGKILL: job %s failed after %d attempts (%d stalls): %s%n", id,
                                status.getInt("attemptsMade"), status.getInt("stalledCounter"),
                                status.getString("failedReason"));
                    }
                    assertEndedOnceInTheLastEpoch(b, id);
                }
                await("the reader that followed a job across the outage sees it end").atMost(STEP)
                        .until(() -> reader.ended().isDone());
                assertThat(reader.events()).extracting(SseClient.Message::event).last().isIn("completed", "failed");
                assertThat(reader.events()).filteredOn(e -> TERMINAL.contains(e.event())).hasSize(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                submitting.set(false);
            }
        }
    }

    /** Tagged {@value TestForks#ALONE}: it runs after the other integration tests, alone (it starves a CPU). */
    @Test
    @Tag(TestForks.ALONE)
    void cpuStarvationOfAnInstanceNeverShowsTwoWritersToAReader() throws Exception {
        ServiceProcess a = fleet.launch("chaos-A", Map.of("fq.simulator.research.steps", "100"));
        String jobId = start(a, "a starved instance");
        long tokenA = await().atMost(STEP).until(() -> status(a, jobId), s -> "active".equals(s.getString("state")))
                .getLong("fencingToken");
        ServiceProcess b = fleet.launch("chaos-B", Map.of("fq.simulator.research.steps", "10"));
        try (SseClient reader = SseClient.open(b.url("/research/stream/" + jobId))) {
            await().atMost(STEP).until(() -> reader.events().stream().anyMatch(e -> "progress".equals(e.event())));

            // A squeezed onto CPU 0 at the lowest priority, under busy loops at the highest: it runs, barely.
            List<Process> hogs = new ArrayList<>();
            long starvedAt = System.nanoTime();
            try {
                squeeze(a.pid(), "0", "19");
                for (int i = 0; i < 2; i++) {
                    hogs.add(new ProcessBuilder("nice", "-n", "-20", "taskset", "-c", "0", "sh", "-c", "while :; do :; done")
                            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
                }
                long tokenB = await("B takes over while A starves").atMost(STEP)
                        .until(() -> status(b, jobId), s -> "chaos-B".equals(s.getString("workerId")))
                        .getLong("fencingToken");
                System.out.printf("chaos: CPU starvation of an instance: taken over after %d ms%n",
                        (System.nanoTime() - starvedAt) / 1_000_000);
                assertThat(tokenB).isGreaterThan(tokenA);
            } finally {
                hogs.forEach(Process::destroyForcibly);
                squeeze(a.pid(), "0-" + (Runtime.getRuntime().availableProcessors() - 1), "0");
            }

            await("A learns it lost the job and closes its LLM stream").atMost(STEP)
                    .until(() -> simulatorCounts(a, jobId).getInt("closedEarly") == 1);
            await().atMost(STEP).until(() -> reader.ended().isDone());
            List<SseClient.Message> seen = reader.events();
            List<String> types = seen.stream().map(SseClient.Message::event).toList();
            assertThat(types).as("one reset").containsOnlyOnce("reset");
            int reset = types.indexOf("reset");
            assertThat(seen.subList(0, reset)).extracting(SseClient.Message::fencingToken).containsOnly(tokenA);
            assertThat(seen.subList(reset + 1, seen.size())).extracting(SseClient.Message::fencingToken)
                    .doesNotContain(tokenA);
        }
        assertEndedOnceInTheLastEpoch(b, jobId);
    }

    /** Sets every thread of a process to the CPUs given ({@code taskset}) and to a nice value ({@code renice}). */
    private static void squeeze(long pid, String cpus, String nice) throws Exception {
        run("taskset", "-a", "-cp", cpus, Long.toString(pid));
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc", Long.toString(pid), "task"))) {
            for (java.nio.file.Path task : tasks.toList()) {
                run("renice", "-n", nice, "-p", task.getFileName().toString());
            }
        }
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not end");
        }
    }

    /** The job's history ends with one terminal event, of its last epoch, and nothing older follows that epoch. */
    private static void assertEndedOnceInTheLastEpoch(ServiceProcess process, String jobId) {
        List<Map<String, Object>> history = process.request().get("/research/history/" + jobId).jsonPath().getList("$");
        assertThat(history).as("%s ends once", jobId).filteredOn(e -> TERMINAL.contains(e.get("event"))).hasSize(1);
        List<Long> tokens = history.stream().map(e -> ((Number) e.get("fencingToken")).longValue()).toList();
        long last = status(process, jobId).getLong("fencingToken");
        int firstOfLast = tokens.indexOf(last);
        assertThat(firstOfLast).as("%s: an event of its last epoch", jobId).isNotNegative();
        assertThat(tokens.subList(firstOfLast, tokens.size())).as("%s: nothing older after its last epoch began", jobId)
                .containsOnly(last);
        assertThat(history.get(history.size() - 1).get("event")).isEqualTo(status(process, jobId).getString("state"));
    }

    private static String start(ServiceProcess process, String query) {
        return process.request().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
    }

    private static JsonPath status(ServiceProcess process, String jobId) {
        return process.request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    private static JsonPath simulatorCounts(ServiceProcess process, String jobId) {
        return process.request().get("/simulator/stats").then().statusCode(200).extract().jsonPath()
                .setRootPath("jobs.'" + jobId + "'");
    }

    private static String via(CuttableProxy proxy) {
        return "redis://127.0.0.1:" + proxy.port();
    }

    private static Map<String, String> with(Map<String, String> config, String key, String value) {
        Map<String, String> all = new java.util.HashMap<>(config);
        all.put(key, value);
        return all;
    }
}
