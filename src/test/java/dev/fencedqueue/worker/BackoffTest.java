package dev.fencedqueue.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import org.junit.jupiter.api.Test;

/**
 * The wait between a failed attempt and the next one: {@code fixed}, {@code exponential}, with
 * {@code jitter}, and {@code custom} (the processor's hook). Waits are measured on the Redis clock, from
 * the failure (the id of its {@code failed} queue event) to the due time or the next attempt's start.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class BackoffTest extends QueueTestSupport {

    /** How late a retry may start after its due time on a shared, loaded machine. */
    private static final long MAX_LATENESS_MS = 100;
    /**
     * How much later than the failure the id of its {@code failed} event may say it was: Redis 7.0 stamps an
     * {@code XADD *} id with the clock when the {@code XADD} runs, a little after the {@code TIME} the script
     * computed the due time from (a millisecond, more when Redis is descheduled mid-script). The exact delay the
     * script scheduled is checked separately, from the {@code delayed} events.
     */
    private static final long EVENT_ID_SLACK_MS = 10;

    @Test
    void fixedBackoffWaitsTheSameDelayAfterEveryFailedAttempt() {
        ProbeProcessor processor = failing();
        workers.start(processor, TestWorkers.options("w-fixed").build());
        String jobId = add(JobOptions.defaults().withAttempts(3).withBackoff(Backoff.fixed(Duration.ofMillis(250))));

        awaitJob(jobId, job -> job.state() == JobState.FAILED);

        assertThat(scheduledDelays(jobId)).containsExactly(250L, 250L);
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

        assertThat(scheduledDelays(jobId)).containsExactly(100L, 200L, 400L);
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

        List<Long> waits = new ArrayList<>();
        for (String jobId : jobIds) {
            awaitJob(jobId, job -> job.state() == JobState.DELAYED);
            waits.add(redis.delayedDue(queue, jobId) - failedAt(jobId, 1));
        }

        assertThat(waits).allSatisfy(wait -> assertThat(wait).isBetween(5_000L - EVENT_ID_SLACK_MS, 10_000L));
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
        assertThat(scheduledDelays(jobId)).containsExactly(150L, 300L);
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

    /** Asserts that a retry started its backoff {@code delayMs} after the failure, and not much later. */
    private static void assertWaited(long waitMs, long delayMs) {
        assertThat(waitMs).isBetween(delayMs - EVENT_ID_SLACK_MS, delayMs + MAX_LATENESS_MS);
    }

    /** @return the {@code delay} (ms) of each {@code delayed} queue event of the job: the backoffs the scripts scheduled */
    private List<Long> scheduledDelays(String jobId) {
        Response entries = redis.send(Request.cmd(Command.XRANGE).arg(queue.keys().events()).arg("-").arg("+"));
        List<Long> delays = new ArrayList<>();
        for (Response entry : Replies.elements(entries)) {
            Map<String, String> fields = Replies.toStringMap(entry.get(1));
            if ("delayed".equals(fields.get("event")) && jobId.equals(fields.get("jobId"))) {
                delays.add(Long.parseLong(fields.get("delay")));
            }
        }
        return delays;
    }

    /** @return for each retry of the job, ms from the failure of the attempt before to the start of the retry */
    private List<Long> waits(ProbeProcessor processor, String jobId) {
        List<Long> starts = processor.attempts().stream().map(attempt -> attempt.context().job())
                .filter(job -> job.id().equals(jobId)).map(Job::processedOn).toList();
        List<Long> waits = new ArrayList<>();
        for (int retry = 1; retry < starts.size(); retry++) {
            waits.add(starts.get(retry) - failedAt(jobId, retry));
        }
        return waits;
    }

    /**
     * @return when attempt {@code attemptsMade} of the job failed (Redis clock, ms): the time in the id of its
     *         {@code failed} queue event
     */
    private long failedAt(String jobId, int attemptsMade) {
        Response entries = redis.send(Request.cmd(Command.XRANGE).arg(queue.keys().events()).arg("-").arg("+"));
        Set<String> wanted = Set.of("event=failed", "jobId=" + jobId, "attemptsMade=" + attemptsMade);
        for (Response entry : Replies.elements(entries)) {
            Set<String> fields = new HashSet<>();
            Replies.toStringMap(entry.get(1)).forEach((field, value) -> fields.add(field + "=" + value));
            if (fields.containsAll(wanted)) {
                String id = entry.get(0).toString();
                return Long.parseLong(id.substring(0, id.indexOf('-')));
            }
        }
        throw new AssertionError("no failed event for attempt " + attemptsMade + " of job " + jobId);
    }
}
