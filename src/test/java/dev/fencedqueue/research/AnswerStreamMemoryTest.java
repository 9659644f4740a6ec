package dev.fencedqueue.research;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencedqueue.queue.Queues;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A streamed answer's events cost Redis little while the job runs: each stream entry stores the delta's text and its
 * counters, nothing a reader can learn from the entry or the job, and readers still get every field of every event.
 */
@QuarkusTest
@RuntimeProfile(OpenAiZombieProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AnswerStreamMemoryTest extends ResearchTestSupport {

    @Inject
    QueueInspector redis;

    @Inject
    Queues queues;

    @Inject
    ResearchConfig researchConfig;

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aStreamedAnswerCostsRedisAtMostTwoBytesPerCharacterWhileItRuns() throws Exception {
        settings.adjust("fq.simulator.answer.words", "2000");
        settings.adjust("fq.simulator.answer.token-interval", "1ms");
        settings.adjust("fq.llm.request.max-tokens", "4000");
        // About what the default fq.llm.stream.delta-interval (500 ms) gives of a model at 20 ms a token of 4 characters, by
        // characters, so that the batches do not depend on this machine's pace.
        settings.adjust("fq.llm.stream.delta-interval", "1h");
        settings.adjust("fq.llm.stream.delta-chars", "100");
        startResearchWorker("worker-memory");
        String jobId = startJob("compact streams");
        await().atMost(Duration.ofMinutes(2)).until(() -> "completed".equals(status(jobId).getString("state")));
        String answer = status(jobId).getString("result.text");
        QueueKeys keys = queues.keys(researchConfig.queue());

        List<Response> entries = Replies.elements(redis.send(Request.cmd(Command.XRANGE).arg(keys.events(jobId))
                .arg("-").arg("+")));
        long bytes = redis.streamBytesBeforeItsLastEntry(keys.events(jobId));
        double perCharacter = (double) bytes / answer.length();
        assertThat(entries.size()).as("a batch every 100 characters of a 2,000-word answer").isGreaterThan(100);
        assertThat(perCharacter).as("%d bytes of stream for %d characters of answer", bytes, answer.length())
                .isLessThanOrEqualTo(2.0);

        Map<String, String> stored = Replies.toStringMap(entries.get(entries.size() / 2).get(1));
        assertThat(stored.keySet()).containsExactly("type", "token", "data", "text");
        assertThat(stored.get("data")).as("an answer delta stores its counters alone").matches("\\[\\d+,4000]");
        JsonNode progress = validHistory(jobId).stream().filter(e -> "progress".equals(e.get("event")))
                .map(e -> (JsonNode) json.valueToTree(e)).skip(5).findFirst().orElseThrow();
        assertThat(progress.path("status").asText()).isEqualTo("progress");
        assertThat(progress.path("workerId").asText()).isEqualTo("worker-memory");
        assertThat(progress.path("fencingToken").asLong()).isEqualTo(status(jobId).getLong("fencingToken"));
        assertThat(progress.path("message").asText()).isEqualTo("answering: " + progress.path("completionTokens")
                .asLong() + " tokens");
        assertThat(progress.path("phase").asText()).isEqualTo("writing");
        assertThat(progress.path("maxTokens").asInt()).isEqualTo(4000);
        assertThat(progress.path("percent").asInt()).isEqualTo(progress.path("completionTokens").asInt() / 40);
        // The job hash's progress (what the status shows while the job runs) tells where it is, not the text.
        JsonNode lastProgress = json.readTree(redis.send(Request.cmd(Command.HGET).arg(keys.job(jobId)).arg("progress"))
                .toString());
        assertThat(lastProgress.has("delta")).as("the job's last progress carries no text").isFalse();
        assertThat(lastProgress.has("completionTokens")).isTrue();
    }
}
