package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.QueueEvent;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.testing.Timeouts;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * Global pause ({@link JobQueue#pause()}: no worker of the fleet takes a job, running ones go on) and local
 * pause ({@link Worker#pause(boolean)}: this worker takes no job). That no job starts is checked once the workers
 * had their chance: once they looked at the queue and wait again, or ran their other jobs for two lock renewals.
 * Workers block on the marker for up to 30 s, so a start within {@link Timeouts#TIMEOUT} of a resume shows that
 * resuming woke them.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class PauseTest extends WorkerTestSupport {

    @Test
    void pausedQueueActivatesNoJobWhileRunningJobsGoOnAndComplete() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        WorkerOptions w1 = TestWorkers.options("w-1").concurrency(2).build();
        WorkerOptions w2 = TestWorkers.options("w-2").concurrency(2).build();
        workers.start(processor, w1);
        workers.start(processor, w2);
        String running = add();
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);

        assertThat(queue.pause().await().atMost(TIMEOUT)).isTrue();
        assertThat(queue.pause().await().atMost(TIMEOUT)).as("already paused").isFalse();
        assertThat(queue.isPaused().await().atMost(TIMEOUT)).isTrue();
        String waiting1 = add();
        String waiting2 = add();
        String prioritized = add(JobOptions.defaults().withPriority(1));

        awaitWorkersLookedAtQueue(w1, w2);
        assertThat(processor.started()).isEqualTo(1);
        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsEntry(JobState.PAUSED, 2L)
                .containsEntry(JobState.WAITING, 0L).containsEntry(JobState.PRIORITIZED, 1L)
                .containsEntry(JobState.ACTIVE, 1L);
        assertThat(redis.job(queue, waiting1).state()).isEqualTo(JobState.WAITING);

        processor.attempt(0).complete("finished while paused");
        awaitJob(running, job -> job.state() == JobState.COMPLETED);
        awaitWorkersLookedAtQueue(w1, w2);
        assertThat(processor.started()).isEqualTo(1);

        assertThat(queue.resume().await().atMost(TIMEOUT)).isTrue();
        assertThat(queue.resume().await().atMost(TIMEOUT)).as("already running").isFalse();
        await().atMost(TIMEOUT).until(() -> processor.started() == 4);
        assertThat(processor.startedJobIds().subList(1, 4)).containsExactlyInAnyOrder(waiting1, waiting2, prioritized);
        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsEntry(JobState.PAUSED, 0L)
                .containsEntry(JobState.ACTIVE, 3L);
        assertThat(queueEvents()).containsSubsequence("paused", "resumed");
    }

    @Test
    void resumeWakesAWorkerThatIsBlockedOnTheMarker() {
        queue.pause().await().atMost(TIMEOUT);
        String jobId = add();
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        WorkerOptions options = TestWorkers.options("w-blocked").build();
        workers.start(processor, options);
        awaitBlockedOnMarker(options);
        assertThat(processor.started()).isZero();

        queue.resume().await().atMost(TIMEOUT);

        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        assertThat(processor.startedJobIds()).containsExactly(jobId);
    }

    @Test
    void locallyPausedWorkerTakesNoJobWhileOtherWorkersDoAndResumesOnDemand() {
        ProbeProcessor processorA = ProbeProcessor.held(queue.name());
        ProbeProcessor processorB = ProbeProcessor.held(queue.name());
        Worker workerA = workers.start(processorA, TestWorkers.options("w-A").concurrency(2).build());
        String first = add();
        await().atMost(TIMEOUT).until(() -> processorA.started() == 1);
        workers.start(processorB, TestWorkers.options("w-B").build());

        workerA.pause(false).await().atMost(TIMEOUT);
        String second = add();
        await().atMost(TIMEOUT).until(() -> processorB.started() == 1);
        assertThat(processorB.startedJobIds()).containsExactly(second);
        String third = add();
        awaitLockRenewed(first, 2);
        assertThat(processorA.started()).isEqualTo(1);
        assertThat(processorB.started()).isEqualTo(1);

        processorA.attempt(0).complete("running job goes on");
        awaitJob(first, job -> job.state() == JobState.COMPLETED);
        awaitLockRenewed(second, 2);
        assertThat(processorA.started()).isEqualTo(1);
        assertThat(redis.job(queue, third).state()).isEqualTo(JobState.WAITING);

        workerA.resume();
        await().atMost(TIMEOUT).until(() -> processorA.started() == 2);
        assertThat(processorA.startedJobIds()).containsExactly(first, third);
    }

    @Test
    void localPauseThatWaitsForActiveJobsCompletesOnlyOnceTheyEnded() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker worker = workers.start(processor, TestWorkers.options("w-wait").concurrency(2).build());
        add();
        add();
        await().atMost(TIMEOUT).until(() -> processor.started() == 2);

        CompletableFuture<Void> paused = worker.pause(true).subscribeAsCompletionStage();
        String waiting = add();
        awaitLockRenewed(processor.attempt(0).context().jobId(), 2);
        assertThat(paused).as("paused while two jobs run").isNotDone();
        processor.attempt(0).complete("one");
        awaitLockRenewed(processor.attempt(1).context().jobId(), 2);
        assertThat(paused).as("paused while one job runs").isNotDone();
        processor.attempt(1).complete("two");

        assertThat(paused).succeedsWithin(TIMEOUT);
        assertThat(worker.activeJobIds()).isEmpty();
        assertThat(processor.started()).isEqualTo(2);
        assertThat(redis.job(queue, waiting).state()).isEqualTo(JobState.WAITING);

        worker.resume();
        await().atMost(TIMEOUT).until(() -> processor.started() == 3);
        assertThat(processor.attempt(2).context().jobId()).isEqualTo(waiting);
    }

    private List<String> queueEvents() {
        return redis.queueEvents(queue).stream().map(QueueEvent::event).toList();
    }
}
