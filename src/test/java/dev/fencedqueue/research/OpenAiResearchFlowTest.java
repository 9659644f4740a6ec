package dev.fencedqueue.research;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.llm.ChatCompletionsClient;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * A research job answered over OpenAI's streaming protocol by the built-in simulator, end to end: the streamed text
 * arrives as fenced {@code progress} events in batches ({@code delta}, running {@code completionTokens}), and the
 * result holds the whole text, the finish reason ({@code length}: cut by {@code max-tokens}, so marked truncated)
 * and the server's usage.
 */
@QuarkusTest
@RuntimeProfile(OpenAiProtocolProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class OpenAiResearchFlowTest {

    @TestHTTPResource("/")
    URL base;

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void streamedTextArrivesInBatchesAndTheResultHasTheTextFinishReasonAndUsage() throws Exception {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "solid-state batteries"))
                .when().post("/research/start").then().statusCode(202).extract().path("jobId");

        List<SseClient.Message> events;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> sse.ended().isDone());
            events = sse.events();
        }
        assertThat(events.get(0).event()).isEqualTo("started");
        assertThat(events.get(events.size() - 1).event()).isEqualTo("completed");
        List<JsonNode> progress = events.stream().filter(e -> e.event().equals("progress")).map(e -> read(e.data())).toList();
        assertThat(progress).as("40 words of 60 characters batches: a few events, not one per word").hasSizeBetween(2, 10);
        assertThat(progress).extracting(p -> p.path("completionTokens").asLong()).isSorted();
        assertThat(progress).as("what a reader measures the answer against, and its one line").extracting(
                p -> p.path("maxTokens").asInt(), p -> p.path("phase").asText()).containsOnly(tuple(40, "writing"));
        String streamed = progress.stream().map(p -> p.path("delta").asText()).collect(Collectors.joining());

        JsonPath status = given().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getString("result.text")).isEqualTo(streamed).startsWith("## Research report: solid-state batteries");
        assertThat(status.getString("result.text").split(" ")).hasSize(40);
        assertThat(status.getString("result.finishReason")).isEqualTo("length");
        assertThat(status.getBoolean("result.truncated")).isTrue();
        assertThat(status.getInt("result.usage.completionTokens")).isEqualTo(40);
        assertThat(status.getInt("result.usage.promptTokens")).isPositive();
        assertThat(status.getBoolean("result.usage.counted")).isFalse();
        assertThat(status.getString("result.model")).isEqualTo(ChatCompletionsClient.SIMULATOR_MODEL);
        assertThat(progress.get(progress.size() - 1).path("percent").asInt()).as("tokens of max-tokens").isBetween(90, 99);
        assertThat(status.getMap("$")).as("a completed job's result says how it ended, not its last progress")
                .doesNotContainKey("progress");
    }

    private JsonNode read(String data) {
        try {
            return json.readTree(data);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
