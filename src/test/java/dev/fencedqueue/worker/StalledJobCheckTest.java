package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static dev.fencedqueue.worker.WorkerTestAccess.thaw;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.flow.FlowRelay;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.Takeover;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The stalled-job check: a job whose lock expired goes back to wait, or fails once it stalled too often. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class StalledJobCheckTest extends QueueTestSupport {

    /** Checkers made by the tests count their stalled jobs nowhere. */
    private static final IntConsumer NOT_COUNTED = jobs -> {
    };


    private static final String STALLED_REASON = "job stalled more than allowable limit";

    @Inject
    EventsConfig events;

    @Inject
    LuaScripts scripts;

    @Inject
    FlowRelay relay;

    @Test
    void reclaimsJobWhenLockExpiresAndTheStaleWorkerStops() {
        Takeover takeover = heldPair();
        Worker workerA = takeover.workerA();
        String jobId = add(JobOptions.defaults());
        ProbeProcessor.Attempt zombie = takeover.awaitAttemptOfA();
        CompletableFuture<CancelReason> zombieCancelled = zombie.context().cancelled().subscribeAsCompletionStage();

        freeze(workerA);
        Job handedBack = awaitJob(jobId, job -> job.state() == JobState.WAITING);
        assertThat(handedBack.stalledCounter()).isEqualTo(1);
        assertThat(handedBack.fencingToken()).isEqualTo(zombie.fencingToken());
        assertThat(redis.activeIds(queue)).isEmpty();

        takeover.workerB().start();
        ProbeProcessor.Attempt current = awaitAttempt(takeover.processorB(), 0);
        assertThat(current.fencingToken()).as("a new epoch").isGreaterThan(zombie.fencingToken());
        Job taken = redis.job(queue, jobId);
        assertThat(taken.state()).isEqualTo(JobState.ACTIVE);
        assertThat(taken.workerId()).isEqualTo("worker-B");
        assertThat(taken.attemptsStarted()).isEqualTo(2);

        // A wakes up: its next lock renewal finds the newer token and cancels its pipeline.
        thaw(workerA);
        assertThat(zombieCancelled).succeedsWithin(TIMEOUT).isEqualTo(CancelReason.OWNERSHIP_LOST);
        await().atMost(TIMEOUT).until(() -> workerA.activeJobIds().isEmpty());
        assertThat(current.isCancelled()).isFalse();
    }

    @Test
    void failsJobThatStalledMoreThanMaxStalledCount() {
        Takeover takeover = heldPair();
        String jobId = add(JobOptions.defaults().withAttempts(5));
        ProbeProcessor.Attempt onA = takeover.awaitAttemptOfA();

        ProbeProcessor.Attempt onB = takeover.takeOver();
        assertThat(onB.fencingToken()).isGreaterThan(onA.fencingToken());
        assertThat(redis.job(queue, jobId).stalledCounter()).as("one stall is allowed").isEqualTo(1);

        freeze(takeover.workerB());
        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);

        assertThat(job.failedReason()).isEqualTo(STALLED_REASON);
        assertThat(job.stalledCounter()).isEqualTo(2);
        assertThat(job.finishedOn()).isNotNull();
        assertThat(redis.activeIds(queue)).isEmpty();
        assertThat(redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().failed()).arg(jobId))).isNotNull();
        List<JobEvent> events = redis.events(queue, jobId);
        assertThat(events).filteredOn(JobEvent::isTerminal).hasSize(1);
        JobEvent failed = events.get(events.size() - 1);
        assertThat(failed.type()).isEqualTo("failed");
        assertThat(failed.fencingToken()).as("written under the epoch that stalled last").isEqualTo(onB.fencingToken());
        assertThat(failed.data()).contains(STALLED_REASON);
    }

    @Test
    void neverReclaimsJobWhoseLockKeepsBeingRenewed() {
        ProbeProcessor processorA = ProbeProcessor.held(queue.name());
        ProbeProcessor processorB = ProbeProcessor.held(queue.name());
        // A lock of 3 s renewed every 500 ms: a stall of a second or two lets no lock expire, the renewals keep it.
        workers.start(processorA, TestWorkers.options("worker-A").lock(Duration.ofSeconds(3), Duration.ofMillis(500))
                .stalledCheck(Duration.ofMillis(500), 0).build());
        String jobId = add(JobOptions.defaults());
        ProbeProcessor.Attempt attempt = awaitAttempt(processorA, 0);
        workers.start(processorB, options("worker-B", 0));

        // On the Redis clock, until the job's first lock would have expired and two stalled checks (every 500 ms)
        // followed: at every look, the renewing worker keeps the job.
        long firstLockExpired = attempt.context().job().processedOn() + 3_000;
        await().atMost(TIMEOUT).until(() -> {
            Job job = redis.job(queue, jobId);
            assertThat(job.state()).isEqualTo(JobState.ACTIVE);
            assertThat(job.fencingToken()).isEqualTo(attempt.fencingToken());
            assertThat(job.stalledCounter()).isZero();
            assertThat(processorB.started()).isZero();
            assertThat(attempt.isCancelled()).isFalse();
            return redis.redisTimeMillis() > firstLockExpired + 1_000;
        });
        assertThat(redis.lockExpiresAt(queue, jobId)).as("the lock was renewed past its first expiry")
                .isGreaterThan(firstLockExpired);

        attempt.complete("long job done");
        Job job = awaitJob(jobId, j -> j.state() == JobState.COMPLETED);
        assertThat(job.fencingToken()).as("never taken over").isEqualTo(attempt.fencingToken());
        assertThat(job.workerId()).isEqualTo("worker-A");
    }

    @Test
    void workersRunTheCheckAtMostOncePerStalledInterval() {
        workers.start(ProbeProcessor.held(queue.name()), options("worker-A", 1));
        workers.start(ProbeProcessor.held(queue.name()), options("worker-B", 1));
        String checkKey = queue.keys().stalledCheck();
        long ttl = await().atMost(TIMEOUT).until(() -> pttl(checkKey), millis -> millis > 0);
        assertThat(ttl).as("the check key lives one stalled interval").isLessThanOrEqualTo(500L);

        // Two more checkers (as two more workers would) on a queue without workers, every 3 s: the steps between
        // two checks fit in one interval however the machine stalls.
        JobQueue other = redis.freshQueue();
        WorkerOptions every3s = TestWorkers.options("checker")
                .stalledCheck(Duration.ofSeconds(3), 1).drainDelay(Duration.ofSeconds(2)).build();
        StalledJobChecker checkerA = checker(other, every3s);
        StalledJobChecker checkerB = checker(other, every3s);
        String jobId = other.add("job", null, JobOptions.defaults()).await().atMost(TIMEOUT).jobId();
        activateWithShortLock(other);

        long firstCheck = System.nanoTime();
        assertThat(check(checkerA)).as("the job's lock still lives at the first check").isEmpty();
        // The interval (3 s) less a margin of 100 ms: the worker that ran the check finds the key gone at its next
        // tick even when that tick comes a little early (with the whole interval, a lone instance skipped about every
        // other check, and a dead worker's jobs waited one more interval).
        assertThat(pttl(other.keys().stalledCheck())).as("the check key lives the interval less its margin")
                .isBetween(1L, 2_900L);
        await().atMost(TIMEOUT).until(() -> redis.lockExpired(other, jobId));
        assertThat(check(checkerB)).as("the job is stalled, but the check already ran in this interval").isEmpty();
        assertThat(redis.job(other, jobId).state()).isEqualTo(JobState.ACTIVE);

        Map<String, String> moved = await().atMost(TIMEOUT).until(() -> check(checkerB), m -> !m.isEmpty());
        assertThat(Duration.ofNanos(System.nanoTime() - firstCheck)).as("not before the check key expired")
                .isGreaterThanOrEqualTo(Duration.ofMillis(2_900));
        assertThat(moved).containsExactly(Map.entry(jobId, "waiting"));
        assertThat(redis.job(other, jobId).state()).isEqualTo(JobState.WAITING);
    }

    @Test
    void aJobWhoseLockExpiredIsTakenAtTheFirstCheckAfterIt() {
        // One phase: a dead worker's job is taken over within the lock duration and one stalled interval, not two.
        JobQueue other = redis.freshQueue();
        StalledJobChecker checker = checker(other,
                TestWorkers.options("checker").drainDelay(Duration.ofSeconds(2)).build());
        String jobId = other.add("job", null, JobOptions.defaults()).await().atMost(TIMEOUT).jobId();
        activateWithShortLock(other);
        await().atMost(TIMEOUT).until(() -> redis.lockExpired(other, jobId));

        assertThat(check(checker)).as("the first check after the lock expired").containsExactly(Map.entry(jobId, "waiting"));
        assertThat(redis.job(other, jobId).state()).isEqualTo(JobState.WAITING);
    }

    /** Activates the next job of a queue as a worker would, but with a 50 ms lock that nobody renews. */
    private void activateWithShortLock(JobQueue other) {
        scripts.run(LuaScript.MOVE_TO_ACTIVE,
                List.of(other.keys().waitList(), other.keys().active(), other.keys().prioritized(), other.keys().delayed(),
                        other.keys().marker(), other.keys().meta(), other.keys().events()),
                List.of(other.keys().prefix(), "1", UUID.randomUUID().toString(), "50", "checker", "100", "100"))
                .await().atMost(TIMEOUT);
    }

    /** @return a stalled-job checker of the queue, as a worker with these options would run it */
    private StalledJobChecker checker(JobQueue other, WorkerOptions options) {
        return new StalledJobChecker(other.keys(), scripts, events.maxStreamLength(), events.queueStreamMaxLength(),
                options, relay::stalledChecked, NOT_COUNTED);
    }

    private static Map<String, String> check(StalledJobChecker checker) {
        return checker.check().await().atMost(TIMEOUT);
    }

    private long pttl(String key) {
        return redis.send(Request.cmd(Command.PTTL).arg(key)).toLong();
    }

    /** @return the held pair ({@link Takeover#of}), each worker with {@link #options} allowing one stall */
    private Takeover heldPair() {
        return Takeover.of(queue.name(), (processor, workerId) -> workers.create(processor, options(workerId, 1)));
    }

    /** Lock 1 s renewed every 300 ms, stalled check every 500 ms. */
    private static WorkerOptions options(String workerId, int maxStalledCount) {
        return TestWorkers.options(workerId).stalledCheck(Duration.ofMillis(500), maxStalledCount)
                .drainDelay(Duration.ofSeconds(2)).build();
    }
}
