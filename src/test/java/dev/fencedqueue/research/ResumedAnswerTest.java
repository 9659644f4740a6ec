package dev.fencedqueue.research;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.simulator.SimulatorAnswers;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SimulatorStreams;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerOptions;
import io.smallrye.mutiny.Uni;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A takeover continues the answer (OpenAI's protocol, the simulator continuing a trailing assistant message): after
 * one takeover or two, the job's result and the text a reader assembles from the valid history both equal the
 * uninterrupted answer exactly; the new run announces itself with {@code resume}; the committed tokens are counted as
 * saved, not generated again; the zombie's stream is closed.
 */
@QuarkusTest
@RuntimeProfile(OpenAiResumeProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ResumedAnswerTest extends ResearchTestSupport {

    @Inject
    MeterRegistry registry;

    @Test
    void aTakeoverContinuesTheAnswerWithNothingRepeatedOrLost() {
        double savedBefore = counter("fq.llm.tokens", "outcome", "saved");
        double continuedBefore = counter("fq.llm.takeovers", "kind", "continue");
        Worker workerA = startResearchWorker("worker-A");
        String jobId = startJob("resumed once");
        awaitTokens(jobId, 100);
        simulatorAtFullSpeed();

        long runOfB = takeOver(workerA, worker(research, "worker-B"), jobId);
        awaitCompleted(jobId);

        String uninterrupted = uninterrupted("resumed once");
        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted);
        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(answerText(valid)).as("what a reader keeps").isEqualTo(uninterrupted);
        assertThat(valid).filteredOn(e -> "resume".equals(e.get("event"))).singleElement()
                .satisfies(resume -> assertThat(fencingToken(resume)).isEqualTo(runOfB));
        assertThat(valid).as("no reset: the run did not start over").noneMatch(e -> "reset".equals(e.get("event")));

        long saved = status.getLong("tokens.saved.completionTokens");
        assertThat(saved).as("A's committed tokens").isBetween(100L, (long) OpenAiResumeProfile.ANSWER_WORDS - 1);
        assertThat(status.getLong("tokens.result.completionTokens")).as("B generated only the rest")
                .isEqualTo(OpenAiResumeProfile.ANSWER_WORDS - saved);
        assertThat(status.getLong("result.usage.completionTokens")).isEqualTo(OpenAiResumeProfile.ANSWER_WORDS);
        assertThat(status.getInt("tokens.takeovers.continue")).isEqualTo(1);
        assertThat(status.getLong("tokens.zombie.completionTokens")).as("A generated at least what it committed")
                .isGreaterThanOrEqualTo(saved);
        assertThat(counter("fq.llm.tokens", "outcome", "saved") - savedBefore).isEqualTo(saved);
        assertThat(counter("fq.llm.takeovers", "kind", "continue") - continuedBefore).isEqualTo(1);
        await("the zombie's stream is closed").atMost(TIMEOUT).until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);
    }

    @Test
    void twoTakeoversInARowStillGiveTheUninterruptedAnswer() {
        Worker workerA = startResearchWorker("worker-A");
        Worker workerB = worker(research, "worker-B");
        String jobId = startJob("resumed twice");
        awaitTokens(jobId, 100);
        takeOver(workerA, workerB, jobId);
        long committedByA = await("B publishes").atMost(TIMEOUT)
                .until(() -> status(jobId).getObject("progress.completionTokens", Long.class), tokens -> tokens != null);
        awaitTokens(jobId, committedByA + 100);
        simulatorAtFullSpeed();

        takeOver(workerB, worker(research, "worker-C"), jobId);
        awaitCompleted(jobId);

        String uninterrupted = uninterrupted("resumed twice");
        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted);
        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(answerText(valid)).isEqualTo(uninterrupted);
        assertThat(valid).filteredOn(e -> "resume".equals(e.get("event"))).hasSize(2);
        assertThat(status.getInt("tokens.takeovers.continue")).isEqualTo(2);
        assertThat(status.getLong("result.usage.completionTokens")).isEqualTo(OpenAiResumeProfile.ANSWER_WORDS);
    }

    @Test
    void theRetryOfAFailedAttemptContinuesItsAnswer() {
        // The first attempt fails once it has about 200 tokens (as if its host lost the network); the queue retries
        // the job, and the retry, a new run, continues what the failed attempt committed.
        JobProcessor failingOnce = new JobProcessor() {
            @Override
            public String queue() {
                return research.queue();
            }

            @Override
            public Uni<Object> process(JobContext context) {
                if (context.job().attemptsStarted() > 1) {
                    return research.process(context);
                }
                return research.process(context).ifNoItem().after(Duration.ofMillis(2000))
                        .failWith(() -> new IllegalStateException("the first attempt lost its network"));
            }
        };
        workers.start(failingOnce, WorkerOptions.from(config, "worker-failing-once"));
        String jobId = startJob("resumed after a failure");
        awaitTokens(jobId, 1);
        simulatorAtFullSpeed();
        awaitCompleted(jobId);

        String uninterrupted = uninterrupted("resumed after a failure");
        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted);
        assertThat(answerText(validHistory(jobId))).isEqualTo(uninterrupted);
        assertThat(status.getInt("attemptsMade")).as("one failed attempt, then the one that completed").isEqualTo(2);
        assertThat(status.getInt("tokens.failed.attempts")).isEqualTo(1);
        assertThat(status.getInt("tokens.takeovers.continue")).isEqualTo(1);
        assertThat(status.getLong("tokens.saved.completionTokens")).isPositive();
    }

    /** @return the simulator's answer to {@code question}, as one uninterrupted run streams it */
    static String uninterrupted(String question) {
        return SimulatorAnswers.uninterrupted(question, OpenAiResumeProfile.ANSWER_WORDS);
    }

    static void awaitTokens(String jobId, long tokens) {
        await("the answer reaches " + tokens + " tokens").atMost(TIMEOUT)
                .until(() -> status(jobId).getObject("progress.completionTokens", Long.class),
                        now -> now != null && now >= tokens);
        assertThat(status(jobId).getString("state")).as("still running").isEqualTo("active");
    }

    static void awaitCompleted(String jobId) {
        await("the job completes").atMost(Duration.ofSeconds(60))
                .until(() -> "completed".equals(status(jobId).getString("state")));
    }

    private double counter(String name, String tag, String value) {
        var counter = registry.find(name).tag(tag, value).tag("queue", "deep-research").counter();
        return counter == null ? 0 : counter.count();
    }
}
