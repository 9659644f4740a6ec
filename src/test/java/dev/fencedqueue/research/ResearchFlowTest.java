package dev.fencedqueue.research;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
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

        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> sse.ended().isDone());
            List<SseClient.Message> events = sse.events();
            assertThat(events).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "progress", "progress", "progress", "progress", "completed");
            assertThat(events).allSatisfy(e -> assertThat(e.id()).matches("\\d+-\\d+"));
            assertThat(events.get(events.size() - 1).data()).contains("\"fencingToken\":1").contains("AI trends");
        }

        List<Map<String, Object>> history = given().get("/research/history/" + jobId).then().statusCode(200)
                .extract().jsonPath().getList("$");
        List<Map<String, Object>> valid = given().get("/research/valid-history/" + jobId).then().statusCode(200)
                .extract().jsonPath().getList("$");
        assertThat(history).hasSize(7).isEqualTo(valid);

        given().get("/research/status/" + jobId).then().statusCode(200)
                .body("state", equalTo("completed"))
                .body("fencingToken", equalTo(1))
                .body("attemptsMade", equalTo(1))
                .body("result.summary", startsWith("Research report on \"AI trends\""))
                .body("progress.percent", equalTo(83));
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
            await().atMost(Duration.ofSeconds(10)).until(() -> resumed.ended().isDone());
            assertThat(resumed.status()).isCompletedWithValue(200);
            assertThat(resumed.events()).extracting(SseClient.Message::id)
                    .containsExactlyElementsOf(events.subList(5, events.size()).stream().map(SseClient.Message::id).toList());
        }
        given().header("Accept", "text/event-stream").header("Last-Event-ID", terminalId)
                .when().get("/research/stream/no-such-job")
                .then().statusCode(404).body("error", equalTo("not_found"));
    }
}
