package dev.fencedqueue.simulator;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RestrictiveProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/**
 * With {@code fq.simulator.enabled=false} (the packaged application's default) the simulator's endpoints
 * answer 404 and a research job with no {@code fq.llm.url} fails, saying that there is no LLM server.
 */
@QuarkusTest
@TestProfile(RestrictiveProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class SimulatorOffTest extends ResearchTestSupport {

    @Test
    void simulatorEndpointsAnswerNotFound() {
        given().get("/simulator/stats").then().statusCode(404).contentType(ContentType.JSON)
                .body("error", equalTo("not_found"));
        given().contentType(ContentType.JSON).body(Map.of("query", "q", "jobId", "j")).post("/simulator/research")
                .then().statusCode(404);
        given().contentType(ContentType.JSON).body(Map.of("model", "m")).post("/simulator/v1/chat/completions")
                .then().statusCode(404);
    }

    @Test
    void aResearchJobWithoutAnLlmFailsSayingSo() {
        String jobId = startJob("nobody answers");
        startResearchWorker("no-llm");
        await().atMost(Duration.ofSeconds(30)).until(() -> "failed".equals(status(jobId).getString("state")));
        given().get("/research/status/" + jobId).then().body("failedReason", containsString("no LLM server"));
    }
}
