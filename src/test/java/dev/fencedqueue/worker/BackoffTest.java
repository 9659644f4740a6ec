package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.MAX_LATENESS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.testing.Timeouts;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import org.junit.jupiter.api.Test;

/**
 * The wait between a failed attempt and the next one: {@code fixed}, {@code exponential}, with
 * {@code jitter}, and {@code custom} (the processor's hook). The delays the scripts scheduled are read from the
 * {@code delayed} queue events; the waits themselves on the Redis clock: a retry starts no earlier than its
 * backoff after the attempt before it started (that attempt fails at once), and without waiting for anything
 * else (within {@link Timeouts#MAX_LATENESS}, far less than the workers' drain delay of 30 s).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class BackoffTest extends QueueTestSupport {

    @Test
    void fixedBackoffWaitsTheSameDelayAfterEveryFailedAttempt() {
        ProbeProcessor processor = failing();
        workers.start(processor, TestWorkers.options("w-fixed").build());
        String jobId = add(JobOptions.defaults().withAttempts(3).withBackoff(Backoff.fixed(Duration.ofMillis(250))));

        awaitJob(jobId, job -> job.state() == JobState.FAILED);

        assertThat(redis.scheduledDelays(queue, jobId)).containsExactly(250L, 250L);
        assertThat(waits(processor, jobId)).hasSize(2)
                .allSatisfy(wait -> assertWaited(wait, 250));
        assertThat(redis.job(queue, jobId).attemptsMade()).isEqualTo(3);
    }

    @Test
    void exponentialBackoffDoublesTheDelayAfterEveryFailedAttempt() {
        ProbeProcessor processor = failing();
        workers.start(processor, TestWorkers.options("w-exp").build());
        String jobId = add(JobOptions.defaults().withAttempts(4).withBackoff(Backoff.exponential(Duration.ofMillis(100))));

        awaitJob(jobId, job -> job.state() == JobState.FAILED);

        assertThat(redis.scheduledDelays(queue, jobId)).containsExactly(100L, 200L, 400L);
        List<Long> waits = waits(processor, jobId);
        assertThat(waits).hasSize(3);
        assertWaited(waits.get(0), 100);
        assertWaited(waits.get(1), 200);
        assertWaited(waits.get(2), 400);
    }

    @Test
    void jitterShortensEachWaitByARandomPartOfTheDelayNeverLengthensIt() {
        workers.start(failing(), TestWorkers.options("w-jitter").concurrency(4).build());
        Backoff backoff = Backoff.fixed(Duration.ofSeconds(10)).withJitter(0.5);
        List<String> jobIds = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            jobIds.add(add(JobOptions.defaults().withAttempts(2).withBackoff(backoff)));
        }

        // Each due time on the Redis clock: at least half the delay after the attempt started (it failed after that),
        // at most the delay after its failed event (stamped after the script read the clock).
        List<Long> waits = new ArrayList<>();
        for (String jobId : jobIds) {
            Job delayed = awaitJob(jobId, job -> job.state() == JobState.DELAYED);
            long due = redis.delayedDue(queue, jobId);
            assertThat(due - delayed.processedOn()).as("due after the start").isGreaterThanOrEqualTo(5_000L);
            assertThat(due - redis.failedAt(queue, jobId, 1)).as("due after the failure").isLessThanOrEqualTo(10_000L);
            waits.add(due - redis.failedAt(queue, jobId, 1));
        }

        assertThat(new HashSet<>(waits)).as("random waits: %s", waits).hasSizeGreaterThan(1);
    }

    @Test
    void customBackoffWaitsWhatTheProcessorsHookReturns() {
        List<String> calls = new CopyOnWriteArrayList<>();
        ProbeProcessor probe = failing();
        JobProcessor processor = withBackoff(probe, (job, attemptsMade, failure, delay) -> {
            calls.add(job.id() + "/" + attemptsMade + "/" + failure.getMessage() + "/" + delay.toMillis());
            return Optional.of(Duration.ofMillis(150L * attemptsMade));
        });
        workers.start(processor, TestWorkers.options("w-custom").build());
        String jobId = add(JobOptions.defaults().withAttempts(3).withBackoff(Backoff.custom(Duration.ofSeconds(9))));

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);

        assertThat(calls).containsExactly(jobId + "/1/attempt 1 failed/9000", jobId + "/2/attempt 2 failed/9000");
        assertThat(redis.scheduledDelays(queue, jobId)).containsExactly(150L, 300L);
        List<Long> waits = waits(probe, jobId);
        assertWaited(waits.get(0), 150);
        assertWaited(waits.get(1), 300);
        assertThat(job.attemptsMade()).isEqualTo(3);
        assertThat(job.failedReason()).isEqualTo("attempt 3 failed");
    }

    @Test
    void customBackoffReturningEmptyFailsTheJobForGood() {
        ProbeProcessor probe = failing();
        workers.start(withBackoff(probe, (job, attemptsMade, failure, delay) -> Optional.empty()),
                TestWorkers.options("w-give-up").build());
        String jobId = add(JobOptions.defaults().withAttempts(5).withBackoff(Backoff.custom(Duration.ofMillis(100))));

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);

        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.failedReason()).isEqualTo("attempt 1 failed");
        assertThat(probe.started()).isEqualTo(1);
        assertThat(redis.delayedDue(queue, jobId)).isNull();
    }

    @Test
    void customBackoffHookThatThrowsFailsTheJobInsteadOfRetryingForever() {
        ProbeProcessor probe = failing();
        workers.start(withBackoff(probe, (job, attemptsMade, failure, delay) -> {
            throw new IllegalStateException("broken hook");
        }), TestWorkers.options("w-broken").build());
        String jobId = add(JobOptions.defaults().withAttempts(5).withBackoff(Backoff.custom(Duration.ofMillis(100))));

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);

        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(probe.started()).isEqualTo(1);
    }

    @Test
    void nonCustomBackoffNeverAsksTheHook() {
        List<Integer> calls = new CopyOnWriteArrayList<>();
        workers.start(withBackoff(failing(), (job, attemptsMade, failure, delay) -> {
            calls.add(attemptsMade);
            return Optional.empty();
        }), TestWorkers.options("w-not-custom").build());
        String jobId = add(JobOptions.defaults().withAttempts(2).withBackoff(Backoff.fixed(Duration.ofMillis(50))));

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);

        assertThat(job.attemptsMade()).isEqualTo(2);
        assertThat(calls).isEmpty();
    }

    /** The backoff hook of a test processor. */
    @FunctionalInterface
    private interface BackoffHook {
        Optional<Duration> backoff(Job job, int attemptsMade, Throwable failure, Duration delay);
    }

    private static JobProcessor withBackoff(ProbeProcessor probe, BackoffHook hook) {
        return new JobProcessor() {
            @Override
            public String queue() {
                return probe.queue();
            }

            @Override
            public Uni<Object> process(JobContext context) {
                return probe.process(context);
            }

            @Override
            public Optional<Duration> backoff(Job job, int attemptsMade, Throwable failure, Duration delay) {
                return hook.backoff(job, attemptsMade, failure, delay);
            }
        };
    }

    /** @return a processor whose attempt n fails at once with "attempt n failed" */
    private ProbeProcessor failing() {
        return ProbeProcessor.of(queue.name(), context -> Uni.createFrom()
                .failure(new IllegalStateException("attempt " + context.job().attemptsStarted() + " failed")));
    }

    /**
     * Asserts that a retry started no earlier than its backoff after the attempt before it (which failed at once), and
     * on time: within {@link Timeouts#MAX_LATENESS}.
     */
    private static void assertWaited(long waitMs, long delayMs) {
        assertThat(waitMs).as("ms between the starts of two attempts, backoff %d ms", delayMs)
                .isBetween(delayMs, delayMs + MAX_LATENESS.toMillis());
    }

    /**
     * @return for each retry of the job, ms from the start of the attempt before to the start of the retry, on the
     *         Redis clock: the attempt's own run (it fails at once), then its backoff
     */
    private static List<Long> waits(ProbeProcessor processor, String jobId) {
        List<Long> starts = processor.attempts().stream().map(attempt -> attempt.context().job())
                .filter(job -> job.id().equals(jobId)).map(Job::processedOn).toList();
        List<Long> waits = new ArrayList<>();
        for (int retry = 1; retry < starts.size(); retry++) {
            waits.add(starts.get(retry) - starts.get(retry - 1));
        }
        return waits;
    }
}
