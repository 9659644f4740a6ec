package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.Map;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.RedisFullException;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The memory guard against the tests' real Redis, whose {@code maxmemory} and {@code maxmemory-policy} each test sets
 * with {@code CONFIG SET} and puts back: a nearly full Redis refuses new jobs at the door ({@code 503 redis_full},
 * {@code Retry-After}) and stores nothing; Redis's own {@code OOM} reply is the same error, never a bare Redis error;
 * and on a Redis that may evict keys no worker takes a job, and readiness says why, until the policy is
 * {@code noeviction} again.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RedisMemoryGuardTest {

    @Inject
    SharedConnection redis;

    @Inject
    Queues queues;

    @Inject
    ResearchConfig research;

    @AfterEach
    void putRedisBack() {
        config("maxmemory", "0");
        config("maxmemory-policy", "noeviction");
        await().atMost(TIMEOUT).untilAsserted(() -> given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'redis-memory' }.data.maxMemory", equalTo(0))
                .body("checks.find { it.name == 'redis-memory' }.data.policy", equalTo("noeviction")));
    }

    @Test
    void refusesNewJobsWhileRedisIsNearlyFullAndStoresNothing() {
        long used = usedMemory();
        long max = (long) (used / 0.95); // 95 % used, above the default fq.redis.memory.max-ratio of 0.9
        config("maxmemory", Long.toString(max));
        await().atMost(TIMEOUT).untilAsserted(() -> given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'redis-memory' }.data.maxMemory", equalTo((int) max)));
        assertThat(given().get("/q/metrics").asString()).contains("fq_redis_used_memory_bytes")
                .containsPattern("fq_redis_max_memory_bytes(\\{[^}]*})? " + max + "\\.0");
        long jobsBefore = researchJobs();

        given().contentType(ContentType.JSON).body(Map.of("query", "a full Redis")).post("/research/start")
                .then().statusCode(503).contentType(ContentType.JSON).header("Retry-After", "5")
                .body("error", equalTo("redis_full")).body("message", containsString("nearly full"))
                .body("message", containsString("fq.redis.memory.max-ratio"));
        assertThat(researchJobs()).as("jobs in the research queue").isEqualTo(jobsBefore);

        config("maxmemory", "0");
        await().atMost(TIMEOUT).untilAsserted(() -> given().contentType(ContentType.JSON)
                .body(Map.of("query", "room again")).post("/research/start").then().statusCode(202));
    }

    @Test
    void redisOutOfMemoryRepliesAreRedisFullNeverABareRedisError() {
        config("maxmemory", "1");

        Throwable shared = catchThrowable(() -> redis.send(Request.cmd(Command.SET).arg("fq:oom-probe").arg("x"))
                .await().atMost(TIMEOUT));
        Throwable durable = catchThrowable(() -> redis.replicated(send -> send.apply(
                Request.cmd(Command.SET).arg("fq:oom-probe").arg("x"))).await().atMost(TIMEOUT));

        assertThat(shared).isInstanceOf(RedisFullException.class).hasMessageContaining("maxmemory");
        assertThat(durable).isInstanceOf(RedisFullException.class);
        given().contentType(ContentType.JSON).body(Map.of("query", "no room")).post("/research/start")
                .then().statusCode(503).body("error", equalTo("redis_full"));
    }

    @Test
    void runsNoWorkersWhileRedisMayEvictKeysAndSaysWhy() {
        config("maxmemory-policy", "allkeys-lru");
        await().atMost(TIMEOUT).untilAsserted(() -> given().get("/q/health/ready").then().statusCode(503)
                .body("checks.find { it.name == 'redis-memory' }.status", equalTo("DOWN"))
                .body("checks.find { it.name == 'redis-memory' }.data.policy", equalTo("allkeys-lru"))
                .body("checks.find { it.name == 'redis-memory' }.data.error", containsString("noeviction")));

        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "while Redis may evict"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        await("the job waits while Redis may evict keys").during(Duration.ofSeconds(2)).atMost(TIMEOUT)
                .until(() -> "waiting".equals(state(jobId)));

        config("maxmemory-policy", "noeviction");
        await().atMost(TIMEOUT).until(() -> "completed".equals(state(jobId)));
    }

    private String state(String jobId) {
        return given().get("/research/status/" + jobId).then().statusCode(200).extract().path("state");
    }

    private long researchJobs() {
        return queues.queue(research.queue()).getJobCounts().await().atMost(TIMEOUT).values().stream()
                .mapToLong(Long::longValue).sum();
    }

    private long usedMemory() {
        String info = redis.send(Request.cmd(Command.INFO).arg("memory")).await().atMost(TIMEOUT).toString();
        return info.lines().filter(line -> line.startsWith("used_memory:"))
                .mapToLong(line -> Long.parseLong(line.substring("used_memory:".length()).trim())).findFirst()
                .orElseThrow();
    }

    private void config(String name, String value) {
        redis.send(Request.cmd(Command.CONFIG).arg("SET").arg(name).arg(value)).await().atMost(TIMEOUT);
    }
}
