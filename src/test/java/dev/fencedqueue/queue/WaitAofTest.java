package dev.fencedqueue.queue;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.Map;

import dev.fencedqueue.testing.RedisAofResource;
import dev.fencedqueue.testing.RedisServers;
import dev.fencedqueue.testing.RedisTestResource.InjectRedis;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * With {@code fq.redis.wait.aof} and {@code fq.redis.wait.replicas=1}, {@code 202} means the job is
 * in the append-only file of the master and of a replica ({@code WAITAOF 1 1}). Needs Redis 7.2 or later (or Valkey),
 * which the default test binary (Redis 7.0) is not: runs when the tests' server ({@link RedisServers}) has
 * {@code WAITAOF}.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisAofResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
@EnabledIf("dev.fencedqueue.testing.RedisServers#hasWaitAof")
class WaitAofTest {

    @InjectRedis
    RedisAofResource.Pair redis;

    @Test
    void aNewJobIsAcceptedOnlyOnceTheAppendOnlyFilesOfTheMasterAndAReplicaHaveIt() {
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'redis-durability' }.status", equalTo("UP"));

        // The replica keeps no append-only file: WAITAOF 1 1 answers [1, 0] after the timeout.
        start("not on the replica's disk").then().statusCode(503).body("error", equalTo("not_replicated"))
                .body("message", containsString("append-only file of the master and of 0 of the 1 replica"));

        redis.replica().call("CONFIG", "SET", "appendonly", "yes");
        await("the replica writes its append-only file").atMost(Duration.ofSeconds(30)).until(() -> {
            String persistence = redis.replica().call("INFO", "persistence").toString();
            return persistence.contains("aof_enabled:1") && persistence.contains("aof_rewrite_in_progress:0");
        });
        String jobId = await("a job accepted once both files have it").atMost(Duration.ofSeconds(30))
                .until(() -> start("on both disks"), response -> response.statusCode() == 202)
                .jsonPath().getString("jobId");
        assertThat(redis.replica().call("KEYS", "*" + jobId + "*").size()).isPositive();
        given().get("/research/status/" + jobId).then().statusCode(200).body("state", equalTo("waiting"));

        // The master's append-only file turned off: Redis refuses WAITAOF, the instance is not ready.
        redis.master().call("CONFIG", "SET", "appendonly", "no");
        try {
            start("no file on the master").then().statusCode(503).body("error", equalTo("not_replicated"))
                    .body("message", containsString("Redis refused WAITAOF"));
            given().get("/q/health/ready").then().statusCode(503)
                    .body("checks.find { it.name == 'redis-durability' }.data.error",
                            containsString("appendonly is off"));
        } finally {
            redis.master().call("CONFIG", "SET", "appendonly", "yes");
        }
        await("ready again").atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> given().get("/q/health/ready").then().statusCode(200));
    }

    private static Response start(String query) {
        return given().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start");
    }
}
