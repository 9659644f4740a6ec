package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencedqueue.worker.WorkerConfig.ShutdownMode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.research.ResearchProcessor;
import dev.fencedqueue.testing.ProbeProcessor;
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
 * Stopping a worker in one JVM: with {@code HAND_BACK} its running jobs are cancelled and go back to the
 * queue at once, without counting an attempt, so that an idle worker resumes them while the stopped worker's
 * lock would still hold them (a stalled-job takeover waits for the lock to expire, up to 10 s here, and then for
 * a stalled check); with {@code DRAIN} they may finish first, for up to the drain timeout, and the rest is handed
 * back after it, not before. The profile's simulator streams for 6 s.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class GracefulShutdownTest extends WorkerTestSupport {

    /** Longer than the steps a test takes while a worker drains, however the machine stalls. */
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(4);

    @Inject
    ResearchProcessor research;

    @Test
    void handBackClosesTheLlmCallAndAnIdleWorkerResumesTheJobAtOnceInANewEpoch() {
        ProbeProcessor processorA = ProbeProcessor.of(queue.name(), research::process);
        ProbeProcessor processorB = ProbeProcessor.of(queue.name(), research::process);
        Worker workerA = workers.start(processorA, longLock("worker-A"));
        String jobId = "hand-back-" + UUID.randomUUID();
        queue.add("research", Map.of("query", "hand me back"), JobOptions.defaults().withJobId(jobId).withAttempts(2))
                .await().atMost(TIMEOUT);
        ProbeProcessor.Attempt onA = awaitAttempt(processorA, 0);
        CompletableFuture<CancelReason> reason = onA.context().cancelled().subscribeAsCompletionStage();
        await().atMost(TIMEOUT).until(() -> redis.eventTypes(queue, jobId).contains("progress"));
        WorkerOptions optionsB = longLock("worker-B");
        workers.start(processorB, optionsB);
        awaitBlockedOnMarker(optionsB);

        long lockOfAExpiresAt = redis.lockExpiresAt(queue, jobId);
        manager.stop(workerA).await().atMost(TIMEOUT);

        assertThat(reason).succeedsWithin(TIMEOUT).isEqualTo(CancelReason.SHUTDOWN);
        assertThat(onA.isCancelled()).isTrue();
        ProbeProcessor.Attempt onB = awaitAttempt(processorB, 0);
        assertThat(onB.context().job().processedOn()).as("B started the job while A's lock would still have held it")
                .isLessThan(lockOfAExpiresAt);
        assertThat(onB.context().jobId()).isEqualTo(jobId);
        assertThat(onB.fencingToken()).as("a new epoch").isGreaterThan(onA.fencingToken());
        Job resumed = onB.context().job();
        assertThat(resumed.attemptsMade()).as("the hand-back counted no attempt").isZero();
        assertThat(resumed.attemptsStarted()).isEqualTo(1);
        assertThat(resumed.workerId()).isEqualTo("worker-B");
        await().atMost(TIMEOUT).until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);
        assertThat(SimulatorStreams.of(jobId).opened()).isEqualTo(2);

        List<JobEvent> events = redis.events(queue, jobId);
        assertThat(events).filteredOn(JobEvent::isTerminal).isEmpty();
        assertThat(events).filteredOn(event -> event.type().equals("started")).extracting(JobEvent::fencingToken)
                .containsExactly(onA.fencingToken(), onB.fencingToken());
    }

    @Test
    void drainLetsAJobFinishWithinTheTimeoutAndHandsBackTheOneThatDoesNot() {
        ProbeProcessor processorA = ProbeProcessor.held(queue.name());
        ProbeProcessor processorB = ProbeProcessor.held(queue.name());
        // Lock 1 s: the draining worker must keep renewing it.
        Worker workerA = workers.start(processorA, TestWorkers.options("worker-A").concurrency(2)
                .shutdown(ShutdownMode.DRAIN, DRAIN_TIMEOUT).build());
        String finishing = add();
        String slow = add();
        await().atMost(TIMEOUT).until(() -> processorA.started() == 2);
        WorkerOptions optionsB = TestWorkers.options("worker-B").concurrency(2).build();
        workers.start(processorB, optionsB);
        awaitBlockedOnMarker(optionsB);

        long stoppedAt = System.nanoTime();
        CompletableFuture<Void> stopped = manager.stop(workerA).subscribeAsCompletionStage();
        String added = add();
        ProbeProcessor.Attempt addedOnB = awaitAttempt(processorB, 0);
        assertThat(addedOnB.context().jobId()).as("a draining worker takes no new job").isEqualTo(added);
        attemptOf(processorA, finishing).complete("finished while draining");

        Job finished = awaitJob(finishing, job -> job.state() == JobState.COMPLETED);
        assertThat(finished.workerId()).isEqualTo("worker-A");
        assertThat(stopped).isNotDone();
        long slowOnA = attemptOf(processorA, slow).fencingToken();
        assertThat(redis.job(queue, slow).fencingToken()).as("still running on A, its lock renewed").isEqualTo(slowOnA);

        ProbeProcessor.Attempt slowOnB = awaitAttempt(processorB, 1);
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).as("handed back after the drain timeout")
                .isGreaterThanOrEqualTo(DRAIN_TIMEOUT);
        assertThat(slowOnB.context().jobId()).isEqualTo(slow);
        assertThat(slowOnB.fencingToken()).as("a new epoch").isGreaterThan(slowOnA);
        assertThat(slowOnB.context().job().attemptsMade()).isZero();
        assertThat(slowOnB.context().job().stalledCounter()).as("A renewed its lock while draining").isZero();
        assertThat(attemptOf(processorA, slow).isCancelled()).isTrue();
        assertThat(stopped).succeedsWithin(TIMEOUT);
        assertThat(processorA.started()).isEqualTo(2);
    }

    /**
     * A job whose attempt fails while its worker stops (in dev mode the simulator's stream is closed by the same
     * instance's stopping HTTP server) is handed back like the jobs still running, its attempt not counted: with one
     * attempt allowed, a counted failure would have failed the job for good.
     */
    @Test
    void anAttemptThatFailsWhileItsWorkerStopsIsHandedBackWithoutCountingIt() {
        ProbeProcessor processorA = ProbeProcessor.held(queue.name());
        ProbeProcessor processorB = ProbeProcessor.held(queue.name());
        Worker workerA = workers.start(processorA, TestWorkers.options("worker-A")
                .shutdown(ShutdownMode.DRAIN, DRAIN_TIMEOUT).build());
        String jobId = add();
        ProbeProcessor.Attempt onA = awaitAttempt(processorA, 0);

        CompletableFuture<Void> stopped = manager.stop(workerA).subscribeAsCompletionStage();
        onA.fail(new IOException("the LLM server's stream broke: Connection was closed"));
        workers.start(processorB, TestWorkers.options("worker-B").build());

        ProbeProcessor.Attempt onB = awaitAttempt(processorB, 0);
        assertThat(onB.context().jobId()).isEqualTo(jobId);
        assertThat(onB.fencingToken()).as("a new epoch").isGreaterThan(onA.fencingToken());
        Job resumed = onB.context().job();
        assertThat(resumed.attemptsMade()).as("the failure during the stop counted no attempt").isZero();
        assertThat(resumed.failedReason()).isNull();
        assertThat(stopped).succeedsWithin(TIMEOUT);
        onB.complete("done on B");
        assertThat(awaitJob(jobId, job -> job.state().isTerminal()).state()).isEqualTo(JobState.COMPLETED);
    }

    /** Lock 10 s renewed every 3 s, stalled check every 10 s: a stalled-job takeover would take 10 s or more. */
    private static WorkerOptions longLock(String workerId) {
        return WorkerOptions.builder(workerId).concurrency(1).lock(Duration.ofSeconds(10), Duration.ofSeconds(3))
                .stalledCheck(Duration.ofSeconds(10), 1).drainDelay(Duration.ofSeconds(30)).build();
    }

    private static ProbeProcessor.Attempt attemptOf(ProbeProcessor processor, String jobId) {
        return processor.attempts().stream().filter(a -> a.context().jobId().equals(jobId)).findFirst().orElseThrow();
    }
}
