package dev.fencedqueue.research;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.Timeouts;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/**
 * A deep research job whose children are taken over mid-answer (their worker stalls; another takes them over and
 * continues each answer), followed over the flow stream: each child shows its own second run, as a {@code resume}
 * that keeps what the reader has, and the reader's text of each child equals the child's stored answer; the parent's
 * own run is untouched by its children's takeovers.
 */
@QuarkusTest
@RuntimeProfile(OpenAiResumeProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DeepResearchTakeoverTest extends ResearchTestSupport {

    /**
     * OpenAI's protocol streams the plan: each sub-question's {@code planning} event is written as soon as its line is,
     * well before the plan's last word (the simulator writes a word every 10 ms, so the third line alone takes more
     * than 100 ms after the first line ends).
     */
    @Test
    void eachSubQuestionIsPublishedAsThePlanIsWritten() {
        startResearchWorker("worker-plan");
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "grid batteries", "mode", "deep"))
                .when().post("/research/start").then().statusCode(202).extract().path("jobId");
        await("the plan").atMost(Timeouts.TIMEOUT).until(() -> validHistory(jobId).stream()
                .anyMatch(event -> "plan".equals(event.get("event"))));
        simulatorAtFullSpeed(); // the children and the report
        List<Map<String, Object>> events = validHistory(jobId);
        Map<String, Object> plan = events.stream().filter(event -> "plan".equals(event.get("event"))).findFirst()
                .orElseThrow();
        List<Map<String, Object>> subQuestions = events.subList(0, events.indexOf(plan)).stream()
                .filter(event -> event.get("subQuestion") != null).toList();

        assertThat(subQuestions).extracting(event -> event.get("key")).containsExactly("q1", "q2", "q3");
        assertThat(idMs(plan) - idMs(subQuestions.get(0))).as("the first sub-question came while the plan was written")
                .isGreaterThanOrEqualTo(100);
        await("the job ends").atMost(Duration.ofSeconds(120)).until(() -> "completed".equals(status(jobId)
                .getString("state")));
    }

    /** @return when an event was written: its stream entry id's milliseconds (the Redis clock) */
    private static long idMs(Map<String, Object> event) {
        String id = (String) event.get("id");
        return Long.parseLong(id.substring(0, id.indexOf('-')));
    }

    @Test
    void eachChildShowsItsOwnTakeoverInTheFlowStreamAndNoReaderLosesText() {
        Worker workerA = startResearchWorker("worker-A");
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "grid batteries", "mode", "deep"))
                .when().post("/research/start").then().statusCode(202).extract().path("jobId");
        String first = jobId + ":q1";
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId + "/flow")) {
            await("the first child is answering").atMost(Timeouts.TIMEOUT).until(() -> given()
                    .get("/research/status/" + first).then().extract().jsonPath()
                    .getObject("progress.completionTokens", Long.class), tokens -> tokens != null && tokens > 0);
            long firstToken = status(first).getLong("fencingToken");
            simulatorAtFullSpeed(); // for the first child's second run and the report
            long taken = takeOver(workerA, worker(research, "worker-B"), first);
            assertThat(taken).isGreaterThan(firstToken);

            await("the flow ends").atMost(Duration.ofSeconds(120)).until(() -> sse.ended().isDone());
            Map<String, List<SseClient.Message>> byJob = new LinkedHashMap<>();
            for (SseClient.Message event : sse.events()) {
                if (!event.isComment()) {
                    byJob.computeIfAbsent(event.field("jobId"), id -> new ArrayList<>())
                            .add(event);
                }
            }
            List<SseClient.Message> child = byJob.get(first);
            assertThat(child).extracting(SseClient.Message::event).contains("resume").doesNotContain("reset")
                    .endsWith("completed");
            assertThat(child).extracting(SseClient.Message::fencingToken).as("its two runs, in order")
                    .isSorted().contains(firstToken, taken);
            StringBuilder shown = new StringBuilder();
            child.stream().filter(event -> event.event().equals("progress"))
                    .forEach(event -> shown.append(event.field("delta")));
            assertThat(shown.toString()).as("what the reader assembled of the child's answer")
                    .isEqualTo(status(first).getString("result.text"));

            List<SseClient.Message> root = byJob.get(jobId);
            assertThat(root).extracting(SseClient.Message::event).startsWith("started", "progress").contains("plan")
                    .contains("resume")
                    .doesNotContain("reset").endsWith("completed");
            assertThat(status(jobId).getString("result.text")).startsWith("## Research report: Deep research: grid batteries");
        }
    }
}
