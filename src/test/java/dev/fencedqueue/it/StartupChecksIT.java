package dev.fencedqueue.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.Map;

import dev.fencedqueue.testing.ServiceProcess;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;
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

    @Test
    void refusesALockRenewIntervalThatIsNotShorterThanTheLockDuration() {
        ServiceProcess service = fleet.start("renew-too-slow", Map.of("fq.worker.lock-duration", "1s",
                "fq.worker.lock-renew-interval", "2s"), Map.of());

        assertThat(service.awaitExit(EXIT_TIMEOUT)).isNotZero();
        assertThat(service.log()).contains("`fq.worker.lock-renew-interval` (PT2S) must be shorter than "
                + "`fq.worker.lock-duration` (PT1S)");
    }

    @Test
    void refusesASimulatorSlowerThanTheLlmIdleTimeout() {
        ServiceProcess service = fleet.start("silent-simulator", Map.of("fq.simulator.step-interval", "5s",
                "fq.llm.idle-timeout", "2s"), Map.of());

        assertThat(service.awaitExit(EXIT_TIMEOUT)).isNotZero();
        assertThat(service.log())
                .contains("`fq.simulator.step-interval` (PT5S) must be shorter than `fq.llm.idle-timeout`");
    }

    @Test
    void refusesAnOpenAiServerWithoutAModel() {
        ServiceProcess service = fleet.start("no-model", Map.of("fq.llm.protocol", "openai",
                "fq.llm.url", "http://127.0.0.1:9"), Map.of());

        assertThat(service.awaitExit(EXIT_TIMEOUT)).isNotZero();
        assertThat(service.log()).contains("`fq.llm.model` must be set when `fq.llm.protocol` is openai");
    }

    @Test
    void refusesToRunResearchJobsWithoutAnLlm() {
        ServiceProcess service = fleet.start("no-llm", Map.of("fq.simulator.enabled", "false"), Map.of());

        assertThat(service.awaitExit(EXIT_TIMEOUT)).isNotZero();
        assertThat(service.log()).contains("no LLM for research jobs").contains("`fq.llm.url`")
                .contains("`fq.simulator.enabled`");
    }

    @Test
    void refusesAProtocolItDoesNotKnowNamingTheOption() {
        ServiceProcess service = fleet.start("bad-protocol", Map.of("fq.llm.protocol", "grpc"), Map.of());

        assertThat(service.awaitExit(EXIT_TIMEOUT)).isNotZero();
        assertThat(service.log()).contains("fq.llm.protocol").contains("grpc");
    }

    @Test
    void refusesADurationItCannotReadNamingTheOption() {
        ServiceProcess service = fleet.start("bad-duration", Map.of("fq.worker.lock-duration", "soon"), Map.of());

        assertThat(service.awaitExit(EXIT_TIMEOUT)).isNotZero();
        assertThat(service.log()).contains("fq.worker.lock-duration").contains("soon");
    }

    @Test
    void refusesANegativePriceNamingTheOption() {
        ServiceProcess service = fleet.start("negative-price", Map.of("fq.llm.price.input", "-1",
                "fq.llm.price.output", "10"), Map.of());

        assertThat(service.awaitExit(EXIT_TIMEOUT)).isNotZero();
        assertThat(service.log()).contains("fq.llm.price.input must be greater than or equal to 0");
    }

    @Test
    void refusesAnLlmBudgetLeaseShorterThanASecond() {
        ServiceProcess service = fleet.start("short-lease", Map.of("fq.llm.budget.lease", "100ms"), Map.of());

        assertThat(service.awaitExit(EXIT_TIMEOUT)).isNotZero();
        assertThat(service.log()).contains("`fq.llm.budget.lease` must be at least 1s");
    }

    @Test
    void runsNoWorkersOnARedisThatMayEvictKeysAndSaysWhy() {
        fleet.redis().call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        ServiceProcess service = fleet.start("evicting", Map.of("fq.simulator.step-interval", "50ms"), Map.of());

        await().atMost(EXIT_TIMEOUT).ignoreExceptions().failFast("the service exited", () -> !service.isAlive())
                .untilAsserted(() -> service.request().get("/q/health/ready").then().statusCode(503)
                        .body("checks.find { it.name == 'redis-memory' }.status", equalTo("DOWN"))
                        .body("checks.find { it.name == 'redis-memory' }.data.policy", equalTo("allkeys-lru")));
        assertThat(service.log()).contains("Redis's maxmemory-policy is allkeys-lru")
                .contains("maxmemory-policy noeviction").contains("fq.redis.allow-eviction=true");
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
        ServiceProcess service = fleet.launch("good", Map.of("fq.worker.lock-duration", "2s",
                "fq.worker.lock-renew-interval", "500ms"));

        service.request().get("/q/health/live").then().statusCode(200);
        service.request().get("/q/health/ready").then().statusCode(200);
        assertThat(service.isAlive()).isTrue();
    }
}
