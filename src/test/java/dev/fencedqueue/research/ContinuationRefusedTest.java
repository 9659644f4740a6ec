package dev.fencedqueue.research;

import static dev.fencedqueue.research.ResumedAnswerTest.awaitCompleted;
import static dev.fencedqueue.research.ResumedAnswerTest.awaitTokens;
import static dev.fencedqueue.research.ResumedAnswerTest.uninterrupted;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * A server that refuses every continuation (a trailing assistant message, and an instruction to go on): the takeover
 * starts the answer over, and readers get a {@code reset} (the last fallback of {@link ContinuationFallbacksTest}).
 */
@QuarkusTest
@RuntimeProfile(OpenAiResumeProfile.NoContinuation.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ContinuationRefusedTest extends ResearchTestSupport {

    @Test
    void aServerThatRefusesEveryContinuationGetsTheAnswerStartedOverWithAReset() {
        Worker workerA = startResearchWorker("worker-A");
        String jobId = startJob("started over");
        awaitTokens(jobId, 100);
        simulatorAtFullSpeed();

        long runOfB = takeOver(workerA, worker(research, "worker-B"), jobId);
        awaitCompleted(jobId);

        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted("started over"));
        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(valid).as("only the new run's events").allMatch(e -> fencingToken(e) == runOfB);
        assertThat(answerText(valid)).isEqualTo(uninterrupted("started over"));
        assertThat(valid).noneMatch(e -> "resume".equals(e.get("event")));
        assertThat(status.getInt("tokens.takeovers.restart")).isEqualTo(1);
        assertThat(status.getMap("tokens")).doesNotContainKey("saved");
        assertThat(status.getLong("tokens.result.completionTokens")).isEqualTo(OpenAiResumeProfile.ANSWER_WORDS);
    }
}
