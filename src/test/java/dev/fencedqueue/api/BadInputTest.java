package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import java.util.List;
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
                .body("message", equalTo("the request body is not valid JSON: it ends too early (line 1, column 11)"))
                .body(not(containsString("at dev.")));
        given().contentType(ContentType.JSON).body("{\"query\": x}").post("/research/start")
                .then().statusCode(400).body("message", startsWith("the request body is not valid JSON: unexpected input"));
        given().contentType(ContentType.JSON).body("[1, 2]").post("/research/start")
                .then().statusCode(400).body("error", equalTo("bad_request"))
                .body("message", equalTo("the request body must be a JSON object"));
    }

    /** A field the body does not have is refused, naming it: a misspelt option is not silently a default job. */
    @Test
    void rejectsAnUnknownFieldNamingIt() {
        given().contentType(ContentType.JSON).body("{\"query\": \"x\", \"moed\": \"deep\"}").post("/research/start")
                .then().statusCode(400).body("error", equalTo("bad_request")).body("field", equalTo("moed"))
                .body("message", equalTo("`moed` is not a known field (known: `mode`, `query`)"));
        given().contentType(ContentType.JSON).body("{\"message\": \"hi\", \"throttle\": {\"pauseMs\": 5}}")
                .post("/notifications/channels/no-such-channel/fan-out")
                .then().statusCode(400).body("field", equalTo("throttle.pauseMs"));
    }

    /** What a client reads never quotes Jackson, RESTEasy or a Java class. */
    @ParameterizedTest
    @ValueSource(strings = {"{\"query\": ", "[1, 2]", "\"text\"", "{\"query\": [1]}", "{\"query\": \"x\", \"a\": 1}", "{\"query\": x}",
            "{\"query\": \"x\"}}", "nul"})
    void errorMessagesNeverQuoteLibraryOrJavaInternals(String body) {
        String message = given().contentType(ContentType.JSON).body(body).post("/research/start")
                .then().statusCode(400).extract().path("message");
        assertThat(message).doesNotContain("StreamReadFeature", "Source:", "REDACTED", "dev.fencedqueue", "java.",
                "Cannot construct", "ResearchRequest", "`start.", "@Consumes");
    }

    @Test
    void rejectsAnEmptyBodyNamingTheQuery() {
        given().contentType(ContentType.JSON).body("").post("/research/start")
                .then().statusCode(400).body("field", equalTo("query")).body("message", containsString("`query`"));
    }

    @Test
    void namesABadListElementByItsIndex() {
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of("ada", "grace", "linus", "no spaces")))
                .post("/notifications/channels/news/subscribers")
                .then().statusCode(400).body("field", equalTo("subscriberIds[3]"))
                .body("message", equalTo("`subscriberIds[3]` must be 1 to 128 of A-Z a-z 0-9 . _ : @ -"));
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
                .then().statusCode(400).contentType(ContentType.JSON).body("error", equalTo("bad_request"))
                .body("field", equalTo("query"));
    }

    @Test
    void rejectsNonJsonContentType() {
        given().contentType(ContentType.TEXT).body("query=x").post("/research/start")
                .then().statusCode(415).contentType(ContentType.JSON).body("error", equalTo("unsupported_media_type"))
                .body("message", startsWith("the request body must be JSON (Content-Type: application/json), was text/plain"));
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

    @Test
    void withTenancyOffAJobBelongsToTheDefaultTenantWhateverItsHeaderClaims() {
        String jobId = given().header("X-Tenant-Id", "acme").contentType(ContentType.JSON)
                .body(Map.of("query", "a claimed tenant")).post("/research/start").then().statusCode(202)
                .extract().path("jobId");

        given().get("/research/status/" + jobId).then().statusCode(200).body("tenant", equalTo("default"));
    }
}
