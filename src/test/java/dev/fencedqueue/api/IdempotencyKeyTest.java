package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /research/start} with an {@code Idempotency-Key} gives the same job for the same key and body, and
 * {@code 422} for the same key with another body.
 */
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

    /** As the IETF HTTP API working group's Idempotency-Key draft and Stripe answer: the earlier job is not returned. */
    @Test
    void sameIdempotencyKeyWithAnotherBodyIs422() {
        String key = UUID.randomUUID().toString();
        String first = given().contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body(Map.of("query", "once")).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        for (Map<String, String> other : List.of(Map.of("query", "twice"), Map.of("query", "once", "mode", "deep"))) {
            given().contentType(ContentType.JSON).header("Idempotency-Key", key).body(other).post("/research/start")
                    .then().statusCode(422).contentType(ContentType.JSON)
                    .body("error", equalTo("idempotency_key_reused"))
                    .body("message", startsWith("this Idempotency-Key was used for another request (job `" + first));
        }
        given().contentType(ContentType.JSON).header("Idempotency-Key", key).body("{\"query\": \"once\"}")
                .post("/research/start").then().statusCode(202).body("created", equalTo(false))
                .body("jobId", equalTo(first));
    }

    /** The same request is the same however its fields are ordered or spaced. */
    @Test
    void sameIdempotencyKeyWithTheSameBodyInAnotherOrderGivesTheSameJob() {
        String key = UUID.randomUUID().toString();
        String first = given().contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body("{\"query\": \"ordered\", \"mode\": \"plain\"}").post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        given().contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body("{ \"mode\":\"plain\",\"query\":\"ordered\" }").post("/research/start")
                .then().statusCode(202).body("created", equalTo(false)).body("jobId", equalTo(first));
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
