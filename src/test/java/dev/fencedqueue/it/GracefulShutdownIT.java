package dev.fencedqueue.it;

import static dev.fencedqueue.testing.ResearchTestSupport.fencingToken;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Graceful shutdown with real processes: SIGTERM turns readiness DOWN, and the stopping instance either hands its
 * running job back at once (the default), so that another instance resumes it in about a second, or lets it finish
 * first ({@code fq.worker.shutdown.mode=drain}). Locks, stalled checks and the marker's safety-net wake-up are all
 * long (30 s lock renewed every 10 s, 15 s stalled interval, 30 s drain delay), so only the hand-back (and the marker
 * it pushes) can explain a resume within {@link #RESUME_WITHIN}.
 */
class GracefulShutdownIT {

    private static final String READY = "/q/health/ready";
    private static final String SIMULATOR = "/simulator/stats";
    /**
     * How soon after SIGTERM the other instance must start the job: room for a loaded machine, and less than the
     * 20 s for which A's lock (30 s, renewed every 10 s) outlives the SIGTERM at least, which a stalled-job takeover
     * would wait for.
     */
    private static final Duration RESUME_WITHIN = Duration.ofSeconds(15);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(Map.of(
            "fq.worker.lock.duration", "30s",
            "fq.worker.lock.renew-interval", "10s",
            "fq.worker.stalled.interval", "15s",
            "fq.worker.drain-delay", "30s",
            "fq.simulator.research.step-interval", "200ms",
            "quarkus.log.category.\"dev.fencedqueue\".level", "DEBUG"));

    @Test
    void sigtermHandsTheRunningJobBackAndAnotherInstanceResumesItAtOnce() {
        // A's research stream lasts a minute: A is mid-stream when it is told to stop. B's stream is short.
        ServiceProcess a = fleet.launch("proc-A", Map.of("fq.simulator.research.steps", "300"));
        String jobId = startJob(a, "hand me over on SIGTERM");
        long epochOfA = awaitProgressOf(a, jobId, "proc-A");
        ServiceProcess b = fleet.launch("proc-B", Map.of("fq.simulator.research.steps", "10"));
        assertThat(status(b, jobId).getString("workerId")).as("A still runs the job when it is stopped").isEqualTo("proc-A");

        long sigtermAtMs;
        long epochOfB;
        long observedOnBMs;
        int exitStatus;
        try (ShutdownWatch watch = ShutdownWatch.start(a, List.of(READY, SIMULATOR))) {
            sigtermAtMs = System.currentTimeMillis();
            a.terminate();
            epochOfB = await("B starts the job in a newer epoch").atMost(RESUME_WITHIN)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> status(b, jobId), status -> status.getLong("fencingToken") > epochOfA
                            && "proc-B".equals(status.getString("workerId")))
                    .getLong("fencingToken");
            observedOnBMs = watch.elapsedMs();
            JsonPath resumed = status(b, jobId);
            if ("active".equals(resumed.getString("state"))) {
                assertThat(resumed.getInt("attemptsMade")).as("attempts counted by the hand-back").isZero();
            }

            exitStatus = a.awaitExit(Duration.ofSeconds(30));
            ShutdownWatch.Answer down = watch.first(READY, 503).orElseThrow(() -> new AssertionError(
                    "A never answered its readiness probe with 503 while shutting down: " + watch));
            assertThat(down.body()).contains("DOWN");
            JsonPath countsOfA = jobCounts(watch.last(SIMULATOR).orElseThrow().body(), jobId);
            assertThat(countsOfA.getInt("opened")).isEqualTo(1);
            assertThat(countsOfA.getInt("closedEarly")).as("A's LLM stream closed by the hand-back").isEqualTo(1);
            assertThat(countsOfA.getInt("completed")).isZero();
            System.out.printf("GracefulShutdownIT hand-back: readiness DOWN %d ms after SIGTERM; B's status showed "
                    + "its epoch after %d ms; A exited with %d%n", down.afterMs(), observedOnBMs, exitStatus);
        }
        assertStoppedCleanly(a, exitStatus);
        assertThat(a.log()).contains("handed job " + jobId + " back to the queue (code 0)");

        await("B completes the job").atMost(Duration.ofSeconds(20))
                .until(() -> "completed".equals(status(b, jobId).getString("state")));
        List<Map<String, Object>> history = b.request().get("/research/history/" + jobId).jsonPath().getList("$");
        Map<String, Object> startedOnB = history.stream()
                .filter(e -> "started".equals(e.get("event")) && fencingToken(e) == epochOfB)
                .findFirst().orElseThrow();
        long resumeMs = ((Number) startedOnB.get("timestamp")).longValue() - sigtermAtMs;
        System.out.printf("GracefulShutdownIT hand-back: SIGTERM -> B's started event %d ms (Redis clock)%n", resumeMs);
        assertThat(startedOnB.get("workerId")).isEqualTo("proc-B");
        assertThat(resumeMs).as("ms from SIGTERM to B's start (A's lock outlives the SIGTERM by 20 s at least)")
                .isLessThan(RESUME_WITHIN.toMillis());
        assertThat(history).filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.get("event")))
                .extracting(e -> e.get("event")).containsExactly("completed");
        assertThat(history).filteredOn(e -> fencingToken(e) == epochOfA)
                .isNotEmpty().allSatisfy(e -> assertThat(e.get("workerId")).isEqualTo("proc-A"));

        JsonPath status = status(b, jobId);
        assertThat(status.getLong("fencingToken")).isEqualTo(epochOfB);
        assertThat(status.getString("workerId")).isEqualTo("proc-B");
        assertThat(status.getInt("attemptsMade")).as("only B's attempt counts").isEqualTo(1);
        assertThat(status.getInt("attemptsStarted")).isEqualTo(1);
        JsonPath countsOfB = jobCounts(b.request().get(SIMULATOR).asString(), jobId);
        assertThat(countsOfB.getInt("opened")).isEqualTo(1);
        assertThat(countsOfB.getInt("completed")).isEqualTo(1);
    }

    @Test
    void sigtermInDrainModeLetsTheRunningJobFinishBeforeTheInstanceExits() {
        ServiceProcess a = fleet.launch("drain-A", Map.of("fq.simulator.research.steps", "15",
                "fq.worker.shutdown.mode", "drain", "fq.worker.shutdown.drain-timeout", "20s"));
        String jobId = startJob(a, "let me finish on SIGTERM");
        long epochOfA = awaitProgressOf(a, jobId, "drain-A");
        String statusPath = "/research/status/" + jobId;

        int exitStatus;
        try (ShutdownWatch watch = ShutdownWatch.start(a, List.of(READY, statusPath, SIMULATOR))) {
            a.terminate();
            exitStatus = a.awaitExit(Duration.ofSeconds(30));
            long exitedAfterMs = watch.elapsedMs();

            ShutdownWatch.Answer down = watch.first(READY, 503).orElseThrow(() -> new AssertionError(
                    "A never answered its readiness probe with 503 while draining: " + watch));
            ShutdownWatch.Answer last = watch.last(statusPath).orElseThrow();
            JsonPath status = JsonPath.from(last.body());
            assertThat(status.getString("state")).as("the job's last status seen on A").isEqualTo("completed");
            assertThat(status.getLong("fencingToken")).as("never handed over").isEqualTo(epochOfA);
            assertThat(status.getString("workerId")).isEqualTo("drain-A");
            assertThat(status.getInt("attemptsMade")).isEqualTo(1);
            assertThat(down.afterMs()).as("readiness DOWN while the job still ran").isLessThan(last.afterMs());
            JsonPath counts = jobCounts(watch.last(SIMULATOR).orElseThrow().body(), jobId);
            assertThat(counts.getInt("completed")).isEqualTo(1);
            assertThat(counts.getInt("closedEarly")).isZero();
            System.out.printf("GracefulShutdownIT drain: readiness DOWN %d ms after SIGTERM; job completed on A "
                    + "after %d ms; A exited after %d ms with %d%n", down.afterMs(), last.afterMs(), exitedAfterMs,
                    exitStatus);
        }
        assertStoppedCleanly(a, exitStatus);
        assertThat(a.log()).doesNotContain("handed job " + jobId + " back");
    }

    /**
     * The JVM ends a process that SIGTERM shut down with status 143 (128 + 15) once its shutdown hooks ran;
     * Quarkus keeps that default. Clean means: that status (or 0), Quarkus's "stopped" line, and no error logged.
     */
    private static void assertStoppedCleanly(ServiceProcess process, int exitStatus) {
        assertThat(exitStatus).as("exit status of " + process).isIn(0, 143);
        assertThat(process.log()).contains("fenced-queue stopped in").doesNotContain(" ERROR ");
    }

    private static String startJob(ServiceProcess process, String query) {
        return process.request().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
    }

    /**
     * Waits until the job runs on {@code workerId} in its first attempt and its LLM stream sent progress.
     *
     * @return the fencing token of that run
     */
    private static long awaitProgressOf(ServiceProcess process, String jobId, String workerId) {
        long token = await(workerId + " runs the job's first attempt and relays progress")
                .atMost(TIMEOUT)
                .until(() -> status(process, jobId), status -> "active".equals(status.getString("state"))
                        && status.getInt("attemptsStarted") == 1 && workerId.equals(status.getString("workerId"))
                        && status.get("progress") != null)
                .getLong("fencingToken");
        assertThat(token).isPositive();
        return token;
    }

    private static JsonPath status(ServiceProcess process, String jobId) {
        return process.request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    private static JsonPath jobCounts(String stats, String jobId) {
        return JsonPath.from(stats).setRootPath("jobs.'" + jobId + "'");
    }
}
