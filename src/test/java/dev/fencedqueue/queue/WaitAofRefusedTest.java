package dev.fencedqueue.queue;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.util.Map;

import dev.fencedqueue.testing.RedisServers;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * {@code fq.redis.wait.aof} on a Redis that cannot do it (the tests' Redis 7.0 has no
 * {@code WAITAOF}) is a clear misconfiguration, never a silent downgrade: the instance is not ready, saying why, and
 * a new job is answered {@code 503} rather than accepted as durable. Runs where the tests' server has no
 * {@code WAITAOF} ({@link RedisServers}); on one that has it, {@link WaitAofTest} checks the refusal of a server whose
 * {@code appendonly} is off.
 */
@QuarkusTest
@TestProfile(WaitAofRefusedTest.WaitAof.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@EnabledIf("dev.fencedqueue.testing.RedisServers#lacksWaitAof")
class WaitAofRefusedTest {

    /** {@code fq.redis.wait.aof} on. */
    public static class WaitAof extends WorkersOffProfile {
        @Override
        protected Map<String, String> more() {
            return Map.of("fq.redis.wait.aof", "true");
        }
    }

    @Test
    void isNotReadyAndRefusesNewJobsWhenRedisHasNoWaitaof() {
        given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"))
                .body("checks.find { it.name == 'redis' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'redis-durability' }.status", equalTo("DOWN"))
                .body("checks.find { it.name == 'redis-durability' }.data.error", containsString("Redis 7.2"));

        given().contentType(ContentType.JSON).body(Map.of("query", "durable or nothing")).post("/research/start")
                .then().statusCode(503).header("Retry-After", equalTo("1"))
                .body("error", equalTo("not_replicated"))
                .body("message", containsString("Redis refused WAITAOF"))
                .body("message", containsString("fq.redis.wait.aof needs Redis 7.2"));
    }
}
