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
 * A server that refuses a trailing assistant message ({@code 400}, as Anthropic's Claude 4.6 and later do): the probe
 * finds it out, the takeover continues by instruction, and the words the model repeats at the seam are dropped, so the
 * result and what a reader keeps equal the uninterrupted answer.
 */
@QuarkusTest
@RuntimeProfile(OpenAiResumeProfile.ByInstruction.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ContinuationFallbacksTest extends ResearchTestSupport {

    @Test
    void aServerThatRefusesATrailingAssistantMessageIsAskedToContinueAndTheSeamIsCleaned() {
        Worker workerA = startResearchWorker("worker-A");
        String jobId = startJob("continued by instruction");
        awaitTokens(jobId, 100);
        simulatorAtFullSpeed();

        takeOver(workerA, worker(research, "worker-B"), jobId);
        awaitCompleted(jobId);

        String uninterrupted = uninterrupted("continued by instruction");
        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted);
        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(answerText(valid)).isEqualTo(uninterrupted);
        assertThat(valid).anyMatch(e -> "resume".equals(e.get("event")));
        assertThat(status.getInt("tokens.takeovers.continue")).isEqualTo(1);
        long saved = status.getLong("tokens.saved.completionTokens");
        assertThat(status.getLong("tokens.result.completionTokens")).as("the rest, and the three words repeated")
                .isEqualTo(OpenAiResumeProfile.ANSWER_WORDS - saved + 3);
    }
}
