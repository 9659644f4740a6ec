package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.util.Map;

import dev.fencedqueue.testing.RedisServerHandle;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** With Redis unreachable at request time the API answers 503 (JSON) and readiness goes DOWN; both recover. */
@QuarkusTest
@TestProfile(RedisOutageTest.OwnRedis.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class RedisOutageTest {

    /** A profile of its own, so that stopping its Redis affects no other test. */
    public static class OwnRedis implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("fq.redis.command-timeout", "2s");
        }
    }

    @RedisTestResource.InjectRedis
    RedisServerHandle redis;

    @AfterEach
    void restartRedis() {
        redis.restart();
    }

    @Test
    void answers503AndReportsNotReadyWhileRedisIsDown() {
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "before")).post("/research/start")
                .then().statusCode(202).extract().path("jobId");

        redis.stop();

        given().contentType(ContentType.JSON).body(Map.of("query", "during")).post("/research/start")
                .then().statusCode(503).contentType(ContentType.JSON).body("error", equalTo("unavailable"));
        given().get("/research/status/" + jobId).then().statusCode(503).body("error", equalTo("unavailable"));
        given().accept("text/event-stream").get("/research/stream/" + jobId).then().statusCode(503);
        given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"))
                .body("checks.find { it.name == 'redis' }.status", equalTo("DOWN"));

        redis.restart();

        await().atMost(TIMEOUT).untilAsserted(() ->
                given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP")));
        given().contentType(ContentType.JSON).body(Map.of("query", "after")).post("/research/start")
                .then().statusCode(202);
    }
}
