package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input gets a clear JSON error naming the field, never a stack trace, and loses nothing. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class BadInputTest {

    @Test
    void rejectsMissingQueryNamingTheField() {
        given().contentType(ContentType.JSON).body("{}").post("/research/start")
                .then().statusCode(400).contentType(ContentType.JSON)
                .body("error", equalTo("bad_request"))
                .body("field", equalTo("query"))
                .body("message", containsString("`query`"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\\n\\t"})
    void rejectsBlankQuery(String query) {
        given().contentType(ContentType.JSON).body("{\"query\": \"" + query + "\"}").post("/research/start")
                .then().statusCode(400).body("field", equalTo("query")).body("message", containsString("blank"));
    }

    @Test
    void rejectsQueryOverFourThousandCharacters() {
        given().contentType(ContentType.JSON).body(Map.of("query", "x".repeat(4001))).post("/research/start")
                .then().statusCode(400).body("field", equalTo("query")).body("message", containsString("4000"));
        given().contentType(ContentType.JSON).body(Map.of("query", "x".repeat(4000))).post("/research/start")
                .then().statusCode(202);
    }

    @Test
    void rejectsMalformedJson() {
        given().contentType(ContentType.JSON).body("{\"query\": ").post("/research/start")
                .then().statusCode(400).contentType(ContentType.JSON)
                .body("error", equalTo("bad_request"))
                .body("message", containsString("JSON"))
                .body(not(containsString("at dev.")));
        given().contentType(ContentType.JSON).body("[1, 2]").post("/research/start")
                .then().statusCode(400).body("error", equalTo("bad_request"));
    }

    /** No coercion between JSON scalars: a number, a boolean or an object is not a query, a string is not a size. */
    @ParameterizedTest
    @ValueSource(strings = {"{\"query\": 42}", "{\"query\": 4.2}", "{\"query\": true}", "{\"query\": {\"a\": 1}}",
            "{\"query\": [\"a\"]}"})
    void rejectsAQueryThatIsNotAString(String body) {
        given().contentType(ContentType.JSON).body(body).post("/research/start")
                .then().statusCode(400).body("error", equalTo("bad_request")).body("field", equalTo("query"))
                .body("message", equalTo("`query` must be a string"));
    }

    /** Nor is a string or a boolean a number. */
    @ParameterizedTest
    @ValueSource(strings = {"\"500\"", "true", "5.5"})
    void rejectsAChunkSizeThatIsNotAnInteger(String chunkSize) {
        given().contentType(ContentType.JSON).body("{\"message\": \"hi\", \"chunkSize\": " + chunkSize + "}")
                .post("/notifications/channels/no-such-channel/fan-out")
                .then().statusCode(400).body("field", equalTo("chunkSize"))
                .body("message", equalTo("`chunkSize` must be an integer"));
    }

    @Test
    void rejectsMissingBody() {
        given().contentType(ContentType.JSON).post("/research/start")
                .then().statusCode(400).contentType(ContentType.JSON).body("error", equalTo("bad_request"));
    }

    @Test
    void rejectsNonJsonContentType() {
        given().contentType(ContentType.TEXT).body("query=x").post("/research/start")
                .then().statusCode(415).contentType(ContentType.JSON).body("error", equalTo("unsupported_media_type"));
    }

    @Test
    void rejectsOversizedBodyWith413() {
        given().contentType(ContentType.JSON).body(Map.of("query", "x".repeat(100_000))).post("/research/start")
                .then().statusCode(413).contentType(ContentType.JSON).body("error", equalTo("payload_too_large"));
    }

    @Test
    void answers404ForUnknownJobOnEveryPath() {
        String unknown = "research-does-not-exist";
        for (String path : new String[] {"status", "history", "valid-history"}) {
            given().get("/research/" + path + "/" + unknown).then().statusCode(404).contentType(ContentType.JSON)
                    .body("error", equalTo("not_found")).body("message", containsString(unknown));
        }
        given().post("/research/abort/" + unknown).then().statusCode(404).body("error", equalTo("not_found"));
        given().accept("text/event-stream").get("/research/stream/" + unknown)
                .then().statusCode(404).contentType(ContentType.JSON).body("error", equalTo("not_found"));
        given().get("/research/status/has:colon%2Fslash").then().statusCode(404);
    }

    @Test
    void aBadRequestLosesNoAcceptedJob() {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "kept")).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        given().contentType(ContentType.JSON).body("{\"query\": ").post("/research/start").then().statusCode(400);
        given().contentType(ContentType.JSON).body("{}").post("/research/start").then().statusCode(400);
        given().get("/research/status/" + jobId).then().statusCode(200).body("jobId", equalTo(jobId))
                .body("failedReason", nullValue());
    }
}
