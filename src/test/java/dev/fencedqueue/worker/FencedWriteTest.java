package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobNotActiveException;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.StaleFencingTokenException;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.Takeover;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Fenced writes: only the current epoch of a job writes, tokens only grow, and a job ends once. Worker A is
 * frozen (as if paused by GC) until the stalled-job check hands its job to worker B, then A writes.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FencedWriteTest extends QueueTestSupport {

    @Inject
    LuaScripts scripts;

    @Test
    void rejectsProgressFromStaleFencingToken() {
        Takeover takeover = Takeover.of(queue.name(), this::createWorker);
        Worker workerA = takeover.workerA();
        String jobId = add(JobOptions.defaults());
        ProbeProcessor.Attempt zombie = takeover.awaitAttemptOfA();
        zombie.context().progress(10, "epoch 1 at work").await().atMost(TIMEOUT);
        String zombieLockToken = redis.lockToken(queue, jobId);

        ProbeProcessor.Attempt current = takeOver(takeover, jobId);
        current.context().progress(20, "epoch 2 at work").await().atMost(TIMEOUT);
        int eventsBefore = redis.events(queue, jobId).size();

        assertThatThrownBy(() -> zombie.context().progress(30, "zombie write").await().atMost(TIMEOUT))
                .isInstanceOf(StaleFencingTokenException.class).hasMessageContaining(jobId);

        List<JobEvent> events = redis.events(queue, jobId);
        assertThat(events).hasSize(eventsBefore);
        assertThat(events).noneMatch(e -> e.data().contains("zombie write"));
        assertThat(redis.job(queue, jobId).progress()).contains("epoch 2 at work");
        assertThat(workerA.stats().rejectedWrites()).isEqualTo(1);
        await().atMost(TIMEOUT).until(zombie::isCancelled);
        // The refusal comes from the script itself: the same write sent straight to Redis gets -7.
        assertThat(appendEventDirectly(jobId, zombie.fencingToken(), zombieLockToken)).isEqualTo(-7);
    }

    @Test
    void rejectsWriteAfterTheJobWasHandedBackToWait() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker worker = startWorker(processor, "worker-A");
        String jobId = add(JobOptions.defaults());
        ProbeProcessor.Attempt attempt = awaitAttempt(processor, 0);

        freeze(worker);
        awaitJob(jobId, job -> job.state() == JobState.WAITING);

        assertThatThrownBy(() -> attempt.context().progress(50, "after hand-back").await().atMost(TIMEOUT))
                .isInstanceOf(JobNotActiveException.class);
        Job job = redis.job(queue, jobId);
        assertThat(job.fencingToken()).as("nobody took the job again").isEqualTo(attempt.fencingToken());
        assertThat(job.progress()).isNull();
        assertThat(redis.eventTypes(queue, jobId)).containsExactly("started");
    }

    @Test
    void fencingTokenGrowsWithEveryActivation() {
        // Three workers compete for one job whose first three attempts fail at once.
        List<ProbeProcessor> processors = new ArrayList<>();
        for (String id : List.of("worker-A", "worker-B", "worker-C")) {
            ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> context.job().attemptsStarted() < 4
                    ? Uni.createFrom().failure(new IllegalStateException("attempt fails"))
                    : Uni.createFrom().item("done"));
            processors.add(processor);
            startWorker(processor, id);
        }
        String jobId = add(JobOptions.defaults().withAttempts(4).withBackoff(Backoff.NONE));

        Job job = awaitJob(jobId, j -> j.state() == JobState.COMPLETED);

        List<ProbeProcessor.Attempt> attempts = processors.stream().flatMap(p -> p.attempts().stream())
                .sorted(Comparator.comparingInt(a -> a.context().job().attemptsStarted())).toList();
        assertThat(attempts).extracting(a -> a.context().job().attemptsStarted()).containsExactly(1, 2, 3, 4);
        List<Long> tokens = attempts.stream().map(ProbeProcessor.Attempt::fencingToken).toList();
        assertThat(tokens).as("each attempt's token is greater than the one before").isSorted().doesNotHaveDuplicates();
        assertThat(tokens.get(0)).isPositive();
        List<JobEvent> events = redis.events(queue, jobId);
        assertThat(events).filteredOn(e -> e.type().equals("started")).extracting(JobEvent::fencingToken)
                .containsExactlyElementsOf(tokens);
        assertThat(events.get(events.size() - 1)).extracting(JobEvent::type, JobEvent::fencingToken)
                .containsExactly("completed", tokens.get(3));
        assertThat(job.fencingToken()).isEqualTo(tokens.get(3));
        assertThat(job.attemptsStarted()).isEqualTo(4);
    }

    @Test
    void rejectsCompletionFromStaleEpochSoTheJobEndsOnce() {
        Takeover takeover = Takeover.of(queue.name(), this::createWorker);
        Worker workerA = takeover.workerA();
        String jobId = add(JobOptions.defaults());
        ProbeProcessor.Attempt zombie = takeover.awaitAttemptOfA();
        long current = takeOver(takeover, jobId).fencingToken();

        zombie.complete("zombie result");
        await().atMost(TIMEOUT).until(() -> workerA.stats().rejectedWrites() == 1);
        Job stillRunning = redis.job(queue, jobId);
        assertThat(stillRunning.state()).isEqualTo(JobState.ACTIVE);
        assertThat(stillRunning.returnValue()).isNull();
        assertThat(redis.terminalEvents(queue, jobId)).isEmpty();

        takeover.processorB().attempt(0).complete("current result");
        Job job = awaitJob(jobId, j -> j.state() == JobState.COMPLETED);

        assertThat(job.returnValue()).isEqualTo("\"current result\"");
        assertThat(job.workerId()).isEqualTo("worker-B");
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(workerA.stats().completed()).isZero();
        assertOneTerminalEventLast(jobId, "completed", current);
    }

    @Test
    void rejectsFailureFromStaleEpochSoNoRetryIsScheduled() {
        Takeover takeover = Takeover.of(queue.name(), this::createWorker);
        Worker workerA = takeover.workerA();
        String jobId = add(JobOptions.defaults().withAttempts(3));
        ProbeProcessor.Attempt zombie = takeover.awaitAttemptOfA();
        long current = takeOver(takeover, jobId).fencingToken();

        zombie.fail(new IllegalStateException("zombie failure"));
        await().atMost(TIMEOUT).until(() -> workerA.stats().rejectedWrites() == 1);
        Job stillRunning = redis.job(queue, jobId);
        assertThat(stillRunning.state()).isEqualTo(JobState.ACTIVE);
        assertThat(stillRunning.attemptsMade()).isZero();
        assertThat(stillRunning.failedReason()).isNull();

        takeover.processorB().attempt(0).complete("current result");
        Job job = awaitJob(jobId, j -> j.state() == JobState.COMPLETED);

        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(takeover.processorB().started()).isEqualTo(1);
        assertOneTerminalEventLast(jobId, "completed", current);
    }

    /**
     * Freezes A until its job stalls, then lets B take it in a new epoch ({@link Takeover#takeOver()}).
     *
     * @return B's attempt, in the new epoch
     */
    private ProbeProcessor.Attempt takeOver(Takeover takeover, String jobId) {
        long epochOfA = redis.job(queue, jobId).fencingToken();
        ProbeProcessor.Attempt current = takeover.takeOver();
        assertThat(current.fencingToken()).as("a newer epoch").isGreaterThan(epochOfA);
        Job job = redis.job(queue, jobId);
        assertThat(job.fencingToken()).isEqualTo(current.fencingToken());
        assertThat(job.workerId()).isEqualTo("worker-B");
        return current;
    }

    private void assertOneTerminalEventLast(String jobId, String type, long token) {
        List<JobEvent> events = redis.events(queue, jobId);
        assertThat(events).filteredOn(JobEvent::isTerminal).hasSize(1);
        assertThat(events.get(events.size() - 1)).extracting(JobEvent::type, JobEvent::fencingToken)
                .containsExactly(type, token);
    }

    private long appendEventDirectly(String jobId, long token, String lockToken) {
        return scripts.run(LuaScript.APPEND_EVENT,
                List.of(queue.keys().job(jobId), queue.keys().events(jobId), queue.keys().events()),
                List.of(Long.toString(token), "progress", "{}", "100", "0", "", jobId, "100", lockToken))
                .await().atMost(TIMEOUT).toLong();
    }
}
