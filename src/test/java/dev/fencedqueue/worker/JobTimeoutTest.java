package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.research.ResearchProcessor;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.ProcessorOnQueue;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SimulatorStreams;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A job's {@code timeout}: an attempt that runs longer is cancelled (its LLM call closed) and counted as a
 * failed attempt, never before the timeout (on the Redis clock: from the attempt's activation to its failure).
 * The profile's simulator streams for 6 s, far longer than the timeouts here.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobTimeoutTest extends QueueTestSupport {

    @Inject
    ResearchProcessor research;

    @Test
    void attemptRunningLongerThanItsTimeoutIsCancelledAndRetriedThenFails() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-timeout").build());
        String jobId = add(JobOptions.defaults().withAttempts(2).withTimeout(Duration.ofMillis(400)));

        ProbeProcessor.Attempt first = awaitAttempt(processor, 0);
        CompletableFuture<CancelReason> reason = first.context().cancelled().subscribeAsCompletionStage();
        await().atMost(TIMEOUT).until(first::isCancelled);
        assertThat(reason).succeedsWithin(TIMEOUT).isEqualTo(CancelReason.TIMEOUT);

        ProbeProcessor.Attempt second = awaitAttempt(processor, 1);
        assertThat(redis.failedAt(queue, jobId, 1) - first.context().job().processedOn())
                .as("ms from the first attempt's start to its failure (Redis clock)").isGreaterThanOrEqualTo(400);
        assertThat(second.fencingToken()).as("the retry is a new epoch").isGreaterThan(first.fencingToken());
        assertThat(second.context().job().attemptsMade()).isEqualTo(1);
        assertThat(second.context().job().failedReason()).isEqualTo("job `" + jobId + "` timed out after PT0.4S");
        await().atMost(TIMEOUT).until(second::isCancelled);

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);
        assertThat(job.finishedOn() - second.context().job().processedOn())
                .as("ms from the second attempt's start to its failure (Redis clock)").isGreaterThanOrEqualTo(400);
        assertThat(job.attemptsMade()).isEqualTo(2);
        assertThat(job.failedReason()).isEqualTo("job `" + jobId + "` timed out after PT0.4S");
        assertThat(redis.events(queue, jobId)).extracting(JobEvent::type).containsExactly("started", "started", "failed");
        second.complete("too late");
        assertThat(processor.started()).isEqualTo(2);
    }

    @Test
    void attemptFinishingWithinItsTimeoutCompletes() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-in-time").build());
        // 30 s: longer than the test lasts, however the machine stalls.
        String jobId = add(JobOptions.defaults().withTimeout(Duration.ofSeconds(30)));
        ProbeProcessor.Attempt attempt = awaitAttempt(processor, 0);
        awaitLockRenewed(jobId, 2);
        assertThat(attempt.isCancelled()).as("cancelled within its timeout").isFalse();

        attempt.complete("in time");

        Job job = awaitJob(jobId, j -> j.state() == JobState.COMPLETED);
        assertThat(job.returnValue()).isEqualTo("\"in time\"");
        assertThat(job.timeout()).isEqualTo(30_000);
        assertThat(attempt.isCancelled()).isFalse();
    }

    @Test
    void timeoutClosesTheResearchLlmStreamAndFailsTheJob() {
        workers.start(ProcessorOnQueue.of(research, queue.name()), TestWorkers.options("w-research").build());
        String jobId = "timeout-" + UUID.randomUUID();
        // 3 s: the research stream (30 steps of 200 ms) has begun by then, however slow the machine's first call is.
        add(Map.of("query", "slow topic"), JobOptions.defaults().withJobId(jobId).withTimeout(Duration.ofSeconds(3)));

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);

        assertThat(job.failedReason()).isEqualTo("job `" + jobId + "` timed out after PT3S");
        await().atMost(TIMEOUT).until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);
        assertThat(SimulatorStreams.of(jobId).opened()).isEqualTo(1);
        assertThat(SimulatorStreams.of(jobId).completed()).isZero();
        assertThat(redis.eventTypes(queue, jobId)).startsWith("started", "progress").endsWith("failed")
                .doesNotContain("completed");
    }
}
