package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The packaged application (jar, or native executable with {@code -Dnative}) refuses to start on a bad
 * configuration, says which options are wrong, and exits with a non-zero status, so that Kubernetes shows a
 * crash loop with the reason instead of a pod that runs jobs twice; on a Redis that may evict keys it runs but takes
 * no job, is not ready, and says why, until Redis's policy is {@code noeviction}.
 */
class StartupChecksIT {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(Map.of());

    /**
     * Each bad configuration, what the process must say about it, and the processes started for them all at once: a
     * refusal costs a JVM's start-up, several seconds on a busy machine, and eight of them one after the other took
     * this class half a minute.
     */
    @TestFactory
    Stream<DynamicTest> refusesABadConfigurationSayingWhichOptionIsWrong() {
        List<Refusal> refusals = List.of(
                new Refusal("a lock renew interval that is not shorter than the lock duration", "renew-too-slow",
                        Map.of("fq.worker.lock.duration", "1s", "fq.worker.lock.renew-interval", "2s"),
                        "`fq.worker.lock.renew-interval` (PT2S) must be shorter than `fq.worker.lock.duration` (PT1S)"),
                new Refusal("a simulator slower than the LLM idle timeout", "silent-simulator",
                        Map.of("fq.simulator.research.step-interval", "5s", "fq.llm.stream.idle-timeout", "2s"),
                        "`fq.simulator.research.step-interval` (PT5S) must be shorter than `fq.llm.stream.idle-timeout`"),
                new Refusal("an OpenAI server without a model", "no-model",
                        Map.of("fq.llm.protocol", "openai", "fq.llm.url", "http://127.0.0.1:9"),
                        "`fq.llm.model` must be set when `fq.llm.protocol` is openai"),
                new Refusal("research jobs without an LLM", "no-llm", Map.of("fq.simulator.enabled", "false"),
                        "no LLM for research jobs", "`fq.llm.url`", "`fq.simulator.enabled`"),
                new Refusal("a protocol it does not know", "bad-protocol", Map.of("fq.llm.protocol", "grpc"),
                        "fq.llm.protocol", "grpc"),
                new Refusal("a duration it cannot read", "bad-duration", Map.of("fq.worker.lock.duration", "soon"),
                        "fq.worker.lock.duration", "soon"),
                new Refusal("a negative price", "negative-price",
                        Map.of("fq.llm.price.input", "-1", "fq.llm.price.output", "10"),
                        "fq.llm.price.input must be greater than or equal to 0"),
                new Refusal("an LLM budget lease shorter than a second", "short-lease",
                        Map.of("fq.llm.budget.lease", "100ms"), "fq.llm.budget.lease must be at least 1s"));
        Map<Refusal, ServiceProcess> started = new LinkedHashMap<>();
        refusals.forEach(refusal -> started.put(refusal, fleet.start(refusal.workerId(), refusal.config(), Map.of())));

        return refusals.stream().map(refusal -> dynamicTest("refuses " + refusal.what(), () -> {
            ServiceProcess service = started.get(refusal);
            assertThat(service.awaitExit(EXIT_TIMEOUT)).as("its exit status; its log:%n%s", service.log()).isNotZero();
            assertThat(service.log()).contains(refusal.messages());
        }));
    }

    @Test
    void runsNoWorkersOnARedisThatMayEvictKeysAndSaysWhy() {
        fleet.redis().call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        ServiceProcess service = fleet.start("evicting", Map.of("fq.simulator.research.step-interval", "50ms"), Map.of());

        await().atMost(EXIT_TIMEOUT).ignoreExceptions().failFast("the service exited", () -> !service.isAlive())
                .untilAsserted(() -> service.request().get("/q/health/ready").then().statusCode(503)
                        .body("checks.find { it.name == 'redis-memory' }.status", equalTo("DOWN"))
                        .body("checks.find { it.name == 'redis-memory' }.data.policy", equalTo("allkeys-lru")));
        assertThat(service.log()).contains("Redis's maxmemory-policy is allkeys-lru")
                .contains("maxmemory-policy noeviction").contains("fq.redis.memory.allow-eviction=true");
        String jobId = service.request().contentType(ContentType.JSON).body(Map.of("query", "evicting"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        await("no worker takes the job").during(Duration.ofSeconds(2)).atMost(EXIT_TIMEOUT)
                .until(() -> "waiting".equals(service.request().get("/research/status/" + jobId).path("state")));

        fleet.redis().call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        service.awaitReady(EXIT_TIMEOUT);
        await().atMost(EXIT_TIMEOUT)
                .until(() -> "completed".equals(service.request().get("/research/status/" + jobId).path("state")));
    }

    @Test
    void startsWithAGoodConfigurationAndServesItsProbes() {
        ServiceProcess service = fleet.launch("good", Map.of("fq.worker.lock.duration", "2s",
                "fq.worker.lock.renew-interval", "500ms"));

        service.request().get("/q/health/live").then().statusCode(200);
        service.request().get("/q/health/ready").then().statusCode(200);
        assertThat(service.isAlive()).isTrue();
    }

    /**
     * A configuration the service must refuse to start with.
     *
     * @param what the mistake, in words (the dynamic test's name)
     * @param workerId the process's worker id and log file's name
     * @param config the process's configuration
     * @param messages what its log must say, each in full
     */
    private record Refusal(String what, String workerId, Map<String, String> config, String... messages) {
    }
}
