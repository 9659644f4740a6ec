package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two real processes wait for their LLM server together, against a third process's simulator that limits and fails
 * like a provider: a {@code 429} met by one pauses the other's calls (no job runs on it before the pause ends); an
 * outage of 10 s, four times the fleet circuit's longest wait and far beyond a call's retries, fails no job, and the
 * jobs finish once it ends, none having counted an attempt for it; a frozen process's call, cut off as a zombie once
 * it is thawed, lets its place among the calls at once go, so that the process that took its job over calls in its
 * stead; a call streaming longer than its lease keeps its place (renewed), and a killed process's place is let go
 * within a lease.
 */
class LlmOutageProcessIT {

    private static final Duration JOBS_FINISH = Duration.ofSeconds(120);

    /** The LLM server's outage: longer than a call's retries (one here) and four times the fleet circuit's 2.5 s. */
    private static final Duration OUTAGE = Duration.ofSeconds(10);

    /** The provider's limit in the rate-limit test: a call beyond it is refused with a retry-after of 60 s / 12. */
    private static final int REQUESTS_PER_MINUTE = 12;

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(ProcessFleet.SHORT_LOCKS);

    @Test
    void aRateLimitOneProcessMeetsPausesTheOthersCalls() {
        ServiceProcess llm = simulator(Map.of("fq.simulator.provider.requests-per-minute",
                Integer.toString(REQUESTS_PER_MINUTE)));
        ServiceProcess a = fleet.start("rl-A", config(llm, Map.of()), Map.of());
        ServiceProcess b = fleet.start("rl-B", config(llm, Map.of()), Map.of());
        fleet.awaitReady(llm, a, b);
        // Another client spends the provider's minute: our next call is refused, with a retry-after of about 5 s.
        for (int i = 0; i < REQUESTS_PER_MINUTE; i++) {
            llm.request().contentType(ContentType.JSON).body(Map.of("model", "another-client", "stream", true,
                    "messages", List.of(Map.of("role", "user", "content", "spend")))).post("/simulator/v1/chat/completions")
                    .then().statusCode(200);
        }

        String first = start(a, "the call that meets the 429");
        // The 429 pauses the fleet's calls (Redis) and holds the queue (its job goes back to the front of the line).
        await("the provider refused a call").atMost(JOBS_FINISH).pollInterval(Duration.ofMillis(200))
                .until(() -> provider(llm).getInt("rateLimited") >= 1);
        ServiceProcess refused = await("the process whose call it refused paused the fleet").atMost(JOBS_FINISH)
                .until(() -> rateLimited(a, "server") > 0 ? a : rateLimited(b, "server") > 0 ? b : null,
                        process -> process != null);
        ServiceProcess other = refused == a ? b : a;
        long pausedUntil = await("the fleet is paused").atMost(JOBS_FINISH).ignoreExceptions().until(() -> other.request().auth()
                .preemptive().basic("admin", "admin").get("/admin/llm/budgets").then().statusCode(200).extract()
                .jsonPath().getLong("[0].pausedUntil"), until -> until > 0);
        // Only the other process runs the jobs now: all it knows of the 429 is what Redis holds.
        refused.freeze();
        String second;
        try {
            second = start(other, "a call the pause holds back");
            await("both jobs completed").atMost(JOBS_FINISH).pollInterval(Duration.ofMillis(500))
                    .until(() -> completed(other, first) && completed(other, second));
        } finally {
            refused.thaw();
        }

        for (String id : List.of(first, second)) {
            JsonPath done = status(other, id);
            assertThat(done.getLong("processedOn")).as("job %s ran once the pause the 429 started had ended", id)
                    .isGreaterThanOrEqualTo(pausedUntil);
            assertThat(done.getInt("attemptsMade")).as("job %s: waiting counted no attempt", id).isEqualTo(1);
        }
    }

    @Test
    void anOutageLongerThanEveryRetryFailsNoJobAndTheJobsFinishAfterIt() {
        ServiceProcess llm = simulator(Map.of());
        Map<String, String> config = config(llm, Map.of("fq.llm.outage.probe-delay", "500ms",
                "fq.llm.outage.probe-max-delay", "2500ms", "fq.llm.retry.max-retries", "1"));
        ServiceProcess a = fleet.start("out-A", config, Map.of());
        ServiceProcess b = fleet.start("out-B", config, Map.of());
        fleet.awaitReady(llm, a, b);
        llm.request().contentType(ContentType.JSON).body(Map.of("seconds", OUTAGE.toSeconds(), "kind", "unavailable"))
                .put("/simulator/provider/outage").then().statusCode(200);
        long outageStarted = System.nanoTime();

        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            jobs.add(start(i % 2 == 0 ? a : b, "through the outage " + i));
        }

        await("every job completed").atMost(JOBS_FINISH.plus(OUTAGE)).pollInterval(Duration.ofMillis(500))
                .until(() -> jobs.stream().allMatch(id -> completed(a, id)));
        assertThat(Duration.ofNanos(System.nanoTime() - outageStarted)).as("they finished after the outage")
                .isGreaterThanOrEqualTo(OUTAGE);
        for (String id : jobs) {
            assertThat(status(a, id).getInt("attemptsMade")).as("job %s: waiting counted no attempt", id).isEqualTo(1);
        }
        JsonPath provider = provider(llm);
        System.out.printf("outage of %d s: %d calls failed (probes and first tries), %d admitted%n",
                OUTAGE.toSeconds(), provider.getInt("failed"), provider.getInt("admitted"));
        assertThat(provider.getInt("failed")).as("the jobs met the outage").isPositive();
        assertThat(rateLimited(a, "down") + rateLimited(a, "open") + rateLimited(b, "down") + rateLimited(b, "open"))
                .as("jobs waited for the server").isPositive();
    }

    @Test
    void aZombiesCallLetsItsPlaceGoSoThatTheRunThatTookItOverCalls() {
        ServiceProcess llm = simulator(Map.of("fq.simulator.answer.words", "100", "fq.simulator.answer.token-interval",
                "100ms"));
        Map<String, String> config = config(llm, Map.of("fq.llm.budget.max-concurrent", "1",
                "fq.llm.budget.lease", "10m"));
        ServiceProcess a = fleet.start("zc-A", config, Map.of());
        ServiceProcess b = fleet.start("zc-B", config, Map.of());
        fleet.awaitReady(llm, a, b);

        String jobId = start(a, "a long answer");
        // Whichever process runs it holds the one place among the calls at once.
        String runner = streamingWorker(a, jobId);
        ServiceProcess zombie = runner.startsWith("zc-A") ? a : b;
        ServiceProcess taker = zombie == a ? b : a;
        zombie.freeze();
        try {
            await("the other process took the job over, and waits for the place").atMost(JOBS_FINISH)
                    .until(() -> {
                        assertNotFailed(taker, jobId);
                        return rateLimited(taker, "concurrency") > 0;
                    });
        } finally {
            zombie.thaw();
        }

        // Within the 10 minutes the zombie's lease would hold its place: the zombie let it go when it learned it lost
        // the job (the job may then have run on either process).
        await("completed").atMost(JOBS_FINISH).pollInterval(Duration.ofMillis(500)).until(() -> completed(taker, jobId));
        await("no call in flight").atMost(JOBS_FINISH).until(() -> taker.request().auth().preemptive()
                .basic("admin", "admin").get("/admin/llm/budgets").then().statusCode(200).extract().jsonPath()
                .getInt("[0].concurrency.inFlight") == 0);
    }

    @Test
    void aCallLongerThanItsLeaseKeepsItsPlaceAndAKilledProcessLetsItsPlaceGoWithinALease() {
        ServiceProcess llm = simulator(Map.of("fq.simulator.answer.words", "70", "fq.simulator.answer.token-interval",
                "100ms"));
        // A lease of 3 s, renewed every second while a call streams: the calls here stream 7 s.
        Map<String, String> config = config(llm, Map.of("fq.llm.budget.max-concurrent", "1",
                "fq.llm.budget.lease", "3s"));
        ServiceProcess a = fleet.start("kl-A", config, Map.of());
        ServiceProcess b = fleet.start("kl-B", config, Map.of());
        fleet.awaitReady(llm, a, b);

        String first = start(a, "a call of seven seconds");
        String runner = streamingWorker(a, first);
        String second = start(b, "a call that waits for the place");
        await("the second job's call waits for the place").atMost(JOBS_FINISH)
                .until(() -> {
                    assertNotFailed(a, first);
                    assertNotFailed(a, second);
                    return rateLimited(a, "concurrency") + rateLimited(b, "concurrency") > 0;
                });
        // 40 tokens at one per 100 ms or slower: the first call has streamed past its first lease and the next.
        await("the first call streamed past two leases").atMost(JOBS_FINISH).until(() -> {
            Long tokens = status(a, first).getObject("progress.completionTokens", Long.class);
            return tokens != null && tokens >= 40;
        });

        ServiceProcess killed = runner.startsWith("kl-A") ? a : b;
        ServiceProcess survivor = killed == a ? b : a;
        killed.kill();
        // Its lease is not renewed any more: the survivor's calls get the place within a lease, not the default minute.
        await("both jobs completed on the survivor").atMost(JOBS_FINISH).pollInterval(Duration.ofMillis(500))
                .until(() -> completed(survivor, first) && completed(survivor, second));
        assertThat(llm.request().get("/simulator/stats").then().statusCode(200).extract().jsonPath()
                .getLong("peakActive")).as("never two calls at once: each long call kept its place").isEqualTo(1);
    }

    /** @return the worker of the process whose run of the job streams its answer, once it does */
    private static String streamingWorker(ServiceProcess process, String jobId) {
        return await("the job streams").atMost(JOBS_FINISH).until(() -> {
            JsonPath status = status(process, jobId);
            return "active".equals(status.getString("state")) && status.get("progress") != null
                    ? status.getString("workerId") : null;
        }, worker -> worker != null);
    }

    private ServiceProcess simulator(Map<String, String> limits) {
        Map<String, String> config = new HashMap<>(Map.of("fq.worker.enabled", "false",
                "fq.simulator.answer.words", "20", "fq.simulator.answer.token-interval", "5ms"));
        config.putAll(limits);
        return fleet.start("llm", config, Map.of());
    }

    private static Map<String, String> config(ServiceProcess llm, Map<String, String> more) {
        Map<String, String> config = new HashMap<>(Map.of("fq.llm.protocol", "openai", "fq.llm.url",
                llm.url("/simulator"), "fq.llm.model", "fenced-queue-simulator", "fq.metrics.queue-refresh", "500ms",
                "fq.admin.password", "admin"));
        config.putAll(more);
        return config;
    }

    private static String start(ServiceProcess process, String query) {
        return process.request().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
    }

    private static boolean completed(ServiceProcess process, String jobId) {
        return "completed".equals(state(process, jobId));
    }

    /** Fails the test at once, rather than at an await's timeout, when the job failed: it would wait for nothing. */
    private static void assertNotFailed(ServiceProcess process, String jobId) {
        state(process, jobId);
    }

    /** @return the job's state, once checked not to be {@code failed} */
    private static String state(ServiceProcess process, String jobId) {
        JsonPath status = status(process, jobId);
        assertThat(status.getString("state")).as("job %s never fails (%s)", jobId, status.getString("failedReason"))
                .isNotEqualTo("failed");
        return status.getString("state");
    }

    private static JsonPath status(ServiceProcess process, String jobId) {
        return process.request().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }

    private static JsonPath provider(ServiceProcess llm) {
        return llm.request().get("/simulator/provider").then().statusCode(200).extract().jsonPath();
    }

    /** @return {@code fq_llm_rate_limited_total{reason}} of the process */
    private static double rateLimited(ServiceProcess process, String reason) {
        String prefix = "fq_llm_rate_limited_total{reason=\"" + reason + "\"}";
        for (String line : process.request().get("/q/metrics").then().statusCode(200).extract().asString()
                .split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(prefix.length()).trim());
            }
        }
        return 0;
    }
}
