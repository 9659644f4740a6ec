package dev.fencedqueue.llm;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.MisbehavingLlmResource;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * An LLM server that misbehaves (the connection reset mid-stream, a malformed line, a stall longer
 * than {@code fq.llm.stream.idle-timeout}, a stream that ends without a finish reason or without {@code [DONE]}, a
 * {@code 500} and a {@code 429} before the first byte) never leaves a research job stuck in {@code active} nor
 * completes it with a cut answer: each attempt fails, the queue retries it, and the job ends {@code failed} with the
 * reason, its stream with one terminal event. The fleet does not wait for the server here
 * ({@code fq.llm.outage.timeout=0s}, a circuit that lets a probe through every 10 ms): that it waits, and that its
 * jobs then finish, {@code LlmOutageTest} shows.
 */
@QuarkusTest
@TestProfile(LlmMisbehaviourTest.QuickFailures.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
@WithTestResource(value = MisbehavingLlmResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LlmMisbehaviourTest {

    /**
     * Two attempts per job, one quick retry of the opening, a 1 s idle timeout, and no
     * waiting for a server that refuses or fails calls.
     */
    public static class QuickFailures implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("fq.research.attempts.max", "2", "fq.llm.retry.max-retries", "1", "fq.llm.retry.delay", "50ms",
                    "fq.llm.stream.idle-timeout", "1s",
                    "fq.llm.outage.timeout", "0s", "fq.llm.outage.probe-delay", "10ms",
                    "fq.llm.outage.probe-max-delay", "10ms");
        }
    }

    /**
     * The streams that go wrong run first, alone: a {@code 500} or {@code 429} that outlasts its retries opens the
     * fleet's circuit (per endpoint and model, and every job here uses the same), and a stream attempt that then finds
     * it open fails for that reason instead of its own.
     */
    @Test
    void noMisbehaviourOfTheLlmLeavesAJobActive() {
        failEach(List.of("reset-mid-stream", "malformed-line", "stall", "no-finish-reason", "no-done"));
        failEach(List.of("status-500", "status-429"));
    }

    private static void failEach(List<String> misbehaviours) {
        Map<String, String> jobs = new LinkedHashMap<>();
        for (String misbehaviour : misbehaviours) {
            jobs.put(misbehaviour, given().contentType(ContentType.JSON).body(Map.of("query", misbehaviour))
                    .post("/research/start").then().statusCode(202).extract().path("jobId"));
        }

        await("every job ends").atMost(Duration.ofSeconds(60)).until(() -> jobs.values().stream()
                .allMatch(id -> "failed".equals(status(id).getString("state"))));
        jobs.forEach((misbehaviour, id) -> {
            JsonPath status = status(id);
            System.out.printf("chaos: LLM %s: job failed after %d attempts: %s%n", misbehaviour,
                    status.getInt("attemptsMade"), status.getString("failedReason"));
            assertThat(status.getInt("attemptsMade")).as(misbehaviour).isEqualTo(2);
            assertThat(status.getString("failedReason")).as(misbehaviour).isNotBlank();
            if (!misbehaviour.startsWith("status-")) {
                assertThat(status.getString("failedReason")).as("a stream's own fault, not the fleet's circuit")
                        .doesNotContain("its circuit is open");
            }
            if (misbehaviour.equals("stall")) {
                assertThat(status.getString("failedReason")).as("a stall names the idle timeout")
                        .contains("and the connection was closed (fq.llm.stream.idle-timeout: 1000 ms)");
            }
            if (misbehaviour.equals("malformed-line")) {
                assertThat(status.getString("failedReason")).as("the line, in the product's words")
                        .isEqualTo("malformed chat completion chunk, not JSON: {\"choices\": [not json");
            }
            if (misbehaviour.equals("no-finish-reason")) {
                assertThat(status.getString("failedReason")).as("a stream that just stops is no answer")
                        .contains("without a finish reason (`finish_reason`)");
            }
            if (misbehaviour.equals("no-done")) {
                assertThat(status.getString("failedReason")).contains("without `data: [DONE]`");
            }
            List<Map<String, Object>> history = given().get("/research/history/" + id).jsonPath().getList("$");
            assertThat(history).as(misbehaviour)
                    .filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.get("event"))).hasSize(1);
        });
    }

    private static JsonPath status(String jobId) {
        return given().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }
}
