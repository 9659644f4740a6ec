package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.fencedqueue.queue.AbortResult;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import org.junit.jupiter.api.Test;

/**
 * The worker runtime: slots, wake-up on the marker, and cancellation of a job's pipeline. Each wake-up and
 * cancellation is told apart from the slower paths by its outcome (the cancel reason), or by a wait shorter than
 * the slower path's period (an idle worker blocks on the marker for 30 s).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class WorkerTest extends WorkerTestSupport {

    @Test
    void runsAtMostConcurrencyJobsAtOnce() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-slots").concurrency(3).drainDelay(Duration.ofSeconds(2)).build());
        List<String> jobIds = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            jobIds.add(add(JobOptions.defaults()));
        }

        await().atMost(TIMEOUT).until(() -> processor.started() == 3);
        // Four jobs wait while the worker runs on: no fourth starts.
        awaitLockRenewed(processor.attempt(0).context().jobId(), 2);
        assertThat(processor.started()).isEqualTo(3);
        assertThat(redis.activeIds(queue)).hasSize(3);

        int completed = 0;
        while (completed < jobIds.size()) {
            int startedNow = processor.started();
            for (int i = completed; i < startedNow; i++) {
                processor.attempt(i).complete("done " + i);
            }
            completed = startedNow;
            int expected = Math.min(jobIds.size(), completed + 3);
            await().atMost(TIMEOUT).until(() -> processor.started() == expected || processor.started() == jobIds.size());
            assertThat(redis.activeIds(queue)).hasSizeLessThanOrEqualTo(3);
        }

        await().atMost(TIMEOUT).until(() -> jobIds.stream().allMatch(id -> redis.job(queue, id).state() == JobState.COMPLETED));
        assertThat(processor.maxRunning()).isEqualTo(3);
        assertThat(processor.started()).isEqualTo(7);
    }

    @Test
    void idleWorkerIsWokenByTheMarkerNotByPolling() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        WorkerOptions idle = options("w-idle", Duration.ofSeconds(30));
        workers.start(processor, idle);
        awaitBlockedOnMarker(idle);

        String jobId = add(JobOptions.defaults());

        // Within TIMEOUT: the blocking pop would time out only after 30 s.
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        assertThat(processor.attempt(0).context().jobId()).isEqualTo(jobId);
    }

    @Test
    void abortCancelsTheRunningAttemptThroughTheRevokeNotice() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        // Renewal every 5 s: within the test only the revoke notice can stop the attempt.
        Worker worker = workers.start(processor, WorkerOptions.builder("w-abort").concurrency(1)
                .lock(Duration.ofSeconds(10), Duration.ofSeconds(5)).stalledCheck(Duration.ofSeconds(5), 1)
                .drainDelay(Duration.ofSeconds(2)).build());
        String jobId = add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        ProbeProcessor.Attempt attempt = processor.attempt(0);
        CompletableFuture<CancelReason> reason = attempt.context().cancelled().subscribeAsCompletionStage();
        awaitRevokeSubscription(jobId);

        AbortResult result = queue.abort(jobId, "stop it").await().atMost(TIMEOUT);

        assertThat(result.wasRunning()).isTrue();
        await().atMost(TIMEOUT).until(attempt::isCancelled);
        assertThat(reason).as("cancelled by the notice, not by a renewal").succeedsWithin(TIMEOUT)
                .isEqualTo(CancelReason.REVOKED);
        await().atMost(TIMEOUT).until(() -> worker.activeJobIds().isEmpty());
        assertThatThrownBy(() -> attempt.context().progress(90, "after abort").await().atMost(TIMEOUT))
                .isInstanceOf(JobCancelledException.class);
        assertThat(redis.job(queue, jobId).state()).isEqualTo(JobState.ABORTED);
        assertThat(redis.eventTypes(queue, jobId)).containsExactly("started", "aborted");
    }

    @Test
    void revokeNoticeStopsTheRunningAttemptOfThatEpochOnly() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker worker = workers.start(processor, TestWorkers.options("w-revoke").concurrency(2)
                .drainDelay(Duration.ofSeconds(2)).build());
        add(JobOptions.defaults());
        add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 2);
        ProbeProcessor.Attempt attempt = processor.attempt(0);
        ProbeProcessor.Attempt other = processor.attempt(1);
        String jobId = attempt.context().jobId();
        CompletableFuture<CancelReason> reason = attempt.context().cancelled().subscribeAsCompletionStage();

        // A notice about an older epoch (a smaller token) must not stop the current run. The worker handles the
        // notices of its queue in the order they were published: once the other job's notice stopped it, the one
        // published before it was handled too.
        awaitRevokeSubscription(jobId);
        publishRevoke(jobId + ":" + (attempt.fencingToken() - 1));
        publishRevoke(other.context().jobId() + ":" + other.fencingToken());
        await().atMost(TIMEOUT).until(other::isCancelled);
        assertThat(attempt.isCancelled()).as("stopped by a notice of an older epoch").isFalse();

        publishRevoke(jobId + ":" + attempt.fencingToken());

        await().atMost(TIMEOUT).until(attempt::isCancelled);
        assertThat(reason).as("cancelled by the notice, not by a renewal").succeedsWithin(TIMEOUT)
                .isEqualTo(CancelReason.REVOKED);
        await().atMost(TIMEOUT).until(() -> worker.activeJobIds().isEmpty());
    }

    @Test
    void lostFencingTokenCancelsTheAttemptAtTheNextRenewal() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker worker = workers.start(processor, options("w-token", Duration.ofSeconds(2)));
        String jobId = add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        ProbeProcessor.Attempt attempt = processor.attempt(0);
        CompletableFuture<CancelReason> reason = attempt.context().cancelled().subscribeAsCompletionStage();

        // A newer epoch, without any revoke notice: only the renewal's token check can notice it.
        redis.send(Request.cmd(Command.HINCRBY).arg(queue.keys().job(jobId)).arg("fencingToken").arg(1));

        await().atMost(TIMEOUT).until(attempt::isCancelled);
        assertThat(reason).succeedsWithin(TIMEOUT).isEqualTo(CancelReason.OWNERSHIP_LOST);
        await().atMost(TIMEOUT).until(() -> worker.activeJobIds().isEmpty());
        attempt.complete("too late");
        assertThat(worker.stats().completed()).isZero();
        assertThat(redis.terminalEvents(queue, jobId)).isEmpty();
    }

    @Test
    void stoppingTheWorkerCancelsItsAttemptsAndHandsTheJobBackWithoutCountingAnAttempt() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker worker = manager.create(processor, options("w-stop", Duration.ofSeconds(2)));
        worker.start();
        String jobId = add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        CompletableFuture<CancelReason> reason = processor.attempt(0).context().cancelled().subscribeAsCompletionStage();

        manager.stop(worker).await().atMost(TIMEOUT);

        assertThat(reason).succeedsWithin(TIMEOUT).isEqualTo(CancelReason.SHUTDOWN);
        assertThat(processor.attempt(0).isCancelled()).isTrue();
        Job job = redis.job(queue, jobId);
        assertThat(job.state()).isEqualTo(JobState.WAITING);
        assertThat(job.attemptsMade()).isZero();
        assertThat(job.attemptsStarted()).isZero();
        assertThat(job.fencingToken()).as("the hand-back keeps the token")
                .isEqualTo(processor.attempt(0).fencingToken());
        assertThat(redis.terminalEvents(queue, jobId)).isEmpty();
    }

    @Test
    void stoppingTheLastWorkerOfAQueueReleasesItsRevokeSubscription() {
        Worker first = manager.create(ProbeProcessor.held(queue.name()), options("w-first", Duration.ofSeconds(1)));
        Worker second = manager.create(ProbeProcessor.held(queue.name()), options("w-second", Duration.ofSeconds(1)));
        awaitRevokeSubscription("no-job");

        manager.stop(first).await().atMost(TIMEOUT);
        assertThat(publishRevoke("no-job:0")).as("subscribers while a worker of the queue is left").isEqualTo(1);

        manager.stop(second).await().atMost(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> publishRevoke("no-job:0") == 0);
    }

    /** The test defaults (lock 1 s, renewal 300 ms, stalled check 500 ms) with a given drain delay. */
    private static WorkerOptions options(String workerId, Duration drainDelay) {
        return TestWorkers.options(workerId).drainDelay(drainDelay).build();
    }

    /** Publishes harmless notices (token 0) until the instance's revoke subscription of the queue receives them. */
    private void awaitRevokeSubscription(String jobId) {
        await().atMost(TIMEOUT).until(() -> publishRevoke(jobId + ":0") > 0);
    }

    private long publishRevoke(String message) {
        return redis.send(Request.cmd(Command.PUBLISH).arg(queue.keys().revokedChannel()).arg(message)).toLong();
    }
}
