package dev.fencedqueue.research;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SseClient;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ResearchFlowTest {

    @TestHTTPResource("/")
    URL base;

    @Test
    void streamsAJobFromStartToCompletedAndHistoryEqualsValidHistory() {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "AI trends"))
                .when().post("/research/start")
                .then().statusCode(202)
                .body("streamUrl", startsWith("/research/stream/"))
                .extract().path("jobId");

        long token;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> sse.ended().isDone());
            List<SseClient.Message> events = sse.events();
            assertThat(events).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "progress", "progress", "progress", "progress", "completed");
            assertThat(events).allSatisfy(e -> assertThat(e.id()).matches("\\d+-\\d+"));
            token = events.get(0).fencingToken();
            assertThat(token).as("the run's fencing token").isPositive();
            assertThat(events).as("one run").extracting(SseClient.Message::fencingToken).containsOnly(token);
            assertThat(events.get(events.size() - 1).data()).contains("\"fencingToken\":" + token)
                    .contains("AI trends");
        }

        List<Map<String, Object>> history = given().get("/research/history/" + jobId).then().statusCode(200)
                .extract().jsonPath().getList("$");
        List<Map<String, Object>> valid = given().get("/research/valid-history/" + jobId).then().statusCode(200)
                .extract().jsonPath().getList("$");
        assertThat(history).hasSize(7).isEqualTo(valid);

        given().get("/research/status/" + jobId).then().statusCode(200)
                .body("state", equalTo("completed"))
                .body("fencingToken", equalTo(token))
                .body("attemptsMade", equalTo(1))
                .body("result.summary", startsWith("Research report on \"AI trends\""))
                .body("$", not(hasKey("progress"))) // its result says how it ended, not its last step (83 %)
                .body("data", equalTo(Map.of("query", "AI trends"))); // a plain job: no "mode": null
    }

    @Test
    void reconnectingAfterTheTerminalEventGets204SoAnEventSourceStopsWhileAnEarlierIdGetsTheRest() {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "reconnects"))
                .when().post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        List<SseClient.Message> events;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> sse.ended().isDone());
            events = sse.events();
        }
        String terminalId = events.get(events.size() - 1).id();

        // What an EventSource sends when it reconnects after the server ended the stream.
        given().header("Accept", "text/event-stream").header("Last-Event-ID", terminalId)
                .when().get("/research/stream/" + jobId)
                .then().statusCode(204).body(equalTo(""));

        try (SseClient resumed = SseClient.open(base + "research/stream/" + jobId, events.get(4).id())) {
            await().atMost(TIMEOUT).until(() -> resumed.ended().isDone());
            assertThat(resumed.status()).isCompletedWithValue(200);
            assertThat(resumed.events()).extracting(SseClient.Message::id)
                    .containsExactlyElementsOf(events.subList(5, events.size()).stream().map(SseClient.Message::id).toList());
        }
        given().header("Accept", "text/event-stream").header("Last-Event-ID", terminalId)
                .when().get("/research/stream/no-such-job")
                .then().statusCode(404).body("error", equalTo("not_found"));
    }

    /**
     * What the SSE specification and the proxies in front of the service need: {@code Content-Type:
     * text/event-stream}, {@code Cache-Control: no-cache}, {@code X-Accel-Buffering: no} (nginx would buffer the
     * stream otherwise), a {@code retry:} field, an {@code id:} on every data event; and a client that cannot send
     * {@code Last-Event-ID} (a new EventSource) resumes with {@code ?lastEventId=}.
     */
    @Test
    void sseResponsesCarryWhatTheSpecAndProxiesNeedAndResumeWithAQueryParameter() {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "headers"))
                .when().post("/research/start").then().statusCode(202).extract().path("jobId");
        List<SseClient.Message> events;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> sse.ended().isDone());
            events = sse.events();
        }

        io.restassured.response.Response whole = given().header("Accept", "text/event-stream")
                .when().get("/research/stream/" + jobId);
        whole.then().statusCode(200).header("Content-Type", startsWith("text/event-stream"))
                .header("Cache-Control", equalTo("no-cache")).header("X-Accel-Buffering", equalTo("no"));
        String body = whole.asString();
        assertThat(body).containsOnlyOnce("retry:").containsPattern("(?m)^retry: ?1000$");
        String[] blocks = body.split("\n\n");
        assertThat(blocks).filteredOn(b -> b.contains("data:")).allSatisfy(b -> assertThat(b).contains("id:"));

        String resumed = given().header("Accept", "text/event-stream").queryParam("lastEventId", events.get(4).id())
                .when().get("/research/stream/" + jobId).then().statusCode(200).extract().asString();
        assertThat(resumed).doesNotContain(events.get(4).id()).contains(events.get(5).id());
        given().header("Accept", "text/event-stream").queryParam("lastEventId", events.get(events.size() - 1).id())
                .when().get("/research/stream/" + jobId).then().statusCode(204);
    }
}
