package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/** {@code POST /research/start} with an {@code Idempotency-Key} gives the same job for the same key. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class IdempotencyKeyTest {

    @Test
    void sameIdempotencyKeyGivesTheSameJob() {
        String key = UUID.randomUUID().toString();
        String first = given().contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body(Map.of("query", "once")).post("/research/start")
                .then().statusCode(202).body("created", equalTo(true)).extract().path("jobId");
        String second = given().contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body(Map.of("query", "once")).post("/research/start")
                .then().statusCode(202).body("created", equalTo(false)).extract().path("jobId");
        assertThat(second).isEqualTo(first);
    }

    @Test
    void differentKeysOrNoKeyGiveDifferentJobs() {
        String a = start(UUID.randomUUID().toString());
        String b = start(UUID.randomUUID().toString());
        String c = start(null);
        String d = start(null);
        assertThat(java.util.Set.of(a, b, c, d)).hasSize(4);
    }

    @Test
    void rejectsAnOverlongIdempotencyKey() {
        given().contentType(ContentType.JSON).header("Idempotency-Key", "k".repeat(256))
                .body(Map.of("query", "q")).post("/research/start")
                .then().statusCode(400).body("message", equalTo("`idempotencyKey` must be 1 to 255 characters"));
    }

    private static String start(String key) {
        var request = given().contentType(ContentType.JSON).body(Map.of("query", "q"));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.post("/research/start").then().statusCode(202).extract().path("jobId");
    }
}
