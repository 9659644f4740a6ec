package dev.fencedqueue.research;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SseClient;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * Deep research as a flow, end to end over HTTP and SSE with the built-in simulator: the parent plans
 * ({@code plan} event naming its children), adds one child research job per sub-question, waits in
 * {@code waiting-children}, then runs again (a new epoch that continues its events with {@code resume}, so a reader
 * keeps the plan) and streams the report, made from the children's answers.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DeepResearchTest {

    @TestHTTPResource("/")
    URL base;

    final ObjectMapper json = new ObjectMapper();

    @Test
    void plansResearchesEachSubQuestionAsAChildThenStreamsTheReportFromTheirAnswers() throws Exception {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "heat pumps", "mode", "deep"))
                .when().post("/research/start").then().statusCode(202).extract().path("jobId");

        List<SseClient.Message> events;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sse.ended().isDone());
            events = sse.events().stream().filter(e -> !e.isComment()).toList();
        }
        List<String> types = events.stream().map(SseClient.Message::event).toList();
        int planAt = types.indexOf("plan");
        assertThat(types.subList(0, 2)).containsExactly("started", "progress");
        assertThat(types.subList(1, planAt)).as("planning until the plan").containsOnly("progress");
        assertThat(events.subList(1, planAt)).extracting(event -> event.field("phase")).as("planning, from the start")
                .containsOnly("planning");
        assertThat(types.get(planAt + 1)).isEqualTo("resume");
        assertThat(types.get(types.size() - 1)).isEqualTo("completed");
        assertThat(types).as("the reader keeps the plan: no reset").doesNotContain("reset");
        assertThat(events.get(planAt + 1).fencingToken()).as("the report is a new epoch")
                .isGreaterThan(events.get(0).fencingToken());
        assertThat(JsonPath.from(events.get(planAt + 1).data()).getString("reason")).as("it goes on after its "
                + "children, no takeover").isEqualTo("children");

        JsonNode plan = json.readTree(events.get(planAt).data()).path("subQuestions");
        assertThat(plan).hasSize(3);
        for (int i = 0; i < plan.size(); i++) {
            assertThat(plan.get(i).path("key").asText()).isEqualTo("q" + (i + 1));
            assertThat(plan.get(i).path("jobId").asText()).isEqualTo(jobId + ":q" + (i + 1));
            assertThat(plan.get(i).path("query").asText()).endsWith("?").containsIgnoringCase("heat pumps");
        }

        JsonPath status = given().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getString("name")).isEqualTo("deep-research");
        assertThat(status.getString("result.summary")).startsWith("Research report on \"Deep research: heat pumps\"");
        List<Map<String, Object>> children = status.getList("children");
        assertThat(children).extracting(child -> child.get("jobId"))
                .containsExactlyInAnyOrder(jobId + ":q1", jobId + ":q2", jobId + ":q3");
        assertThat(children).extracting(child -> child.get("state")).containsOnly("completed");
        for (int i = 0; i < plan.size(); i++) {
            String query = plan.get(i).path("query").asText();
            given().get("/research/status/" + jobId + ":q" + (i + 1)).then().statusCode(200)
                    .body("state", equalTo("completed")).body("parentId", equalTo(jobId))
                    .body("data.query", equalTo(query))
                    .body("result.summary", containsString(query));
        }
    }

    /**
     * While the plan is written, each of its sub-questions comes as a {@code planning} progress event ({@code key},
     * {@code subQuestion}), in the plan's order and before the {@code plan} event that names the children.
     */
    @Test
    void publishesEachSubQuestionAsAPlanningEventBeforeThePlanInItsOrder() throws Exception {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "How do fencing tokens make "
                + "distributed locks safe?", "mode", "deep")).when().post("/research/start").then().statusCode(202)
                .extract().path("jobId");

        List<SseClient.Message> events;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sse.events().stream()
                    .anyMatch(event -> "plan".equals(event.event())));
            events = sse.events().stream().filter(e -> !e.isComment()).toList();
        }
        int planAt = events.stream().map(SseClient.Message::event).toList().indexOf("plan");
        List<SseClient.Message> planning = events.subList(0, planAt).stream()
                .filter(event -> event.field("subQuestion") != null).toList();
        JsonNode plan = json.readTree(events.get(planAt).data()).path("subQuestions");
        assertThat(planning).extracting(SseClient.Message::event).containsOnly("progress");
        assertThat(planning).extracting(event -> event.field("phase")).containsOnly("planning");
        assertThat(planning).extracting(event -> event.field("key")).as("one event per sub-question, in order")
                .containsExactly("q1", "q2", "q3");
        assertThat(planning).extracting(event -> event.field("subQuestion")).as("as the plan names them")
                .containsExactly(plan.get(0).path("query").asText(), plan.get(1).path("query").asText(),
                        plan.get(2).path("query").asText());
        assertThat(planning).extracting(SseClient.Message::fencingToken).as("the run that writes the plan")
                .containsOnly(events.get(planAt).fencingToken());
        await("the job ends").atMost(Duration.ofSeconds(60)).until(() -> "completed".equals(given()
                .get("/research/status/" + jobId).then().extract().path("state")));
    }

    @Test
    void theFlowStreamCarriesThePlanEachChildsRunWithItsIdAndTheReportAndResumesEveryJobAtOnce() throws Exception {
        String start = given().contentType(ContentType.JSON).body(Map.of("query", "tidal power", "mode", "deep"))
                .when().post("/research/start").then().statusCode(202).extract().asString();
        String jobId = JsonPath.from(start).getString("jobId");
        assertThat(JsonPath.from(start).getString("flowStreamUrl")).isEqualTo("/research/stream/" + jobId + "/flow");

        List<SseClient.Message> events;
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId + "/flow")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sse.ended().isDone());
            assertThat(sse.status()).isCompletedWithValue(200);
            events = sse.events().stream().filter(e -> !e.isComment()).toList();
        }
        Map<String, List<SseClient.Message>> byJob = new java.util.LinkedHashMap<>();
        for (SseClient.Message event : events) {
            JsonNode data = json.readTree(event.data());
            byJob.computeIfAbsent(data.path("jobId").asText(), id -> new java.util.ArrayList<>()).add(event);
            assertThat(data.path("eventId").asText()).as("the event's id in its job's stream").matches("\\d+-\\d+");
            assertThat(event.id()).as("where the reader is in every job's stream").startsWith("*=");
        }
        assertThat(byJob.keySet()).containsExactlyInAnyOrder(jobId, jobId + ":q1", jobId + ":q2", jobId + ":q3");
        List<String> rootTypes = byJob.get(jobId).stream().map(SseClient.Message::event).toList();
        int rootPlan = rootTypes.indexOf("plan");
        assertThat(rootTypes).startsWith("started", "progress").endsWith("completed").doesNotContain("reset");
        assertThat(rootTypes.subList(1, rootPlan)).as("planning").containsOnly("progress");
        assertThat(rootTypes.get(rootPlan + 1)).isEqualTo("resume");
        for (String child : List.of(jobId + ":q1", jobId + ":q2", jobId + ":q3")) {
            assertThat(byJob.get(child)).extracting(SseClient.Message::event).as(child)
                    .startsWith("started").endsWith("completed").contains("progress");
            assertThat(byJob.get(child)).extracting(SseClient.Message::fencingToken).as("one run").hasSize(
                    byJob.get(child).size()).containsOnly(byJob.get(child).get(0).fencingToken());
        }
        int plan = events.indexOf(byJob.get(jobId).get(rootPlan)); // after started and the planning progress
        assertThat(events.subList(0, plan)).as("children are followed once the plan names them")
                .allSatisfy(event -> assertThat(event.data()).contains("\"jobId\":\"" + jobId + "\""));

        // A reader that had everything gets 204 (an EventSource stops); one that had part gets exactly the rest.
        given().header("Accept", "text/event-stream").header("Last-Event-ID", events.get(events.size() - 1).id())
                .when().get("/research/stream/" + jobId + "/flow").then().statusCode(204);
        // Right after the plan (its children named, nothing of theirs shown yet), and a few events later.
        assertThat(events.get(plan).id()).contains(",q1=0-0,q2=0-0,q3=0-0");
        for (int cut : List.of(plan, plan + 3)) {
            try (SseClient resumed = SseClient.open(base + "research/stream/" + jobId + "/flow", events.get(cut).id())) {
                await().atMost(Duration.ofSeconds(20)).until(() -> resumed.ended().isDone());
                assertThat(resumed.events().stream().filter(e -> !e.isComment()).map(this::jobAndEventId).toList())
                        .as("after " + events.get(cut).id())
                        .containsExactlyInAnyOrderElementsOf(events.subList(cut + 1, events.size()).stream()
                                .map(this::jobAndEventId).toList());
            }
        }
        given().header("Accept", "text/event-stream").when().get("/research/stream/no-such-job/flow")
                .then().statusCode(404).body("error", equalTo("not_found"));
    }

    private String jobAndEventId(SseClient.Message event) {
        return event.field("jobId") + " " + event.field("eventId");
    }

    @Test
    void refusesAnUnknownModeNamingTheField() {
        given().contentType(ContentType.JSON).body(Map.of("query", "heat pumps", "mode", "deeper"))
                .when().post("/research/start").then().statusCode(400)
                .body(containsString("mode"));
    }
}
