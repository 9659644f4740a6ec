package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.testing.Timeouts.MAX_LATENESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.StaleFencingTokenException;
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
import org.junit.jupiter.api.Test;

/** Failed attempts are retried per {@code attempts} and {@code backoff}, each retry in a new epoch. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RetryTest extends QueueTestSupport {

    @Test
    void retriesAfterFixedBackoffInANewEpochUntilAttemptsRunOut() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        start(processor);
        String jobId = add(JobOptions.defaults().withAttempts(3).withBackoff(Backoff.fixed(Duration.ofMillis(400))));

        List<Long> tokens = new ArrayList<>();
        for (int attempt = 1; attempt <= 3; attempt++) {
            ProbeProcessor.Attempt running = awaitAttempt(processor, attempt - 1);
            assertThat(running.context().job().attemptsStarted()).isEqualTo(attempt);
            if (attempt > 1) {
                assertThat(running.fencingToken()).as("a new epoch").isGreaterThan(tokens.get(attempt - 2));
            }
            tokens.add(running.fencingToken());
            assertThat(redis.terminalEvents(queue, jobId)).as("no terminal event before the last attempt ends").isEmpty();
            if (attempt > 1) {
                // The previous epoch can no longer write.
                ProbeProcessor.Attempt previous = processor.attempt(attempt - 2);
                assertThatThrownBy(() -> previous.context().progress(1, "old epoch").await().atMost(TIMEOUT))
                        .isInstanceOf(StaleFencingTokenException.class);
            }
            long failedAfter = redis.redisTimeMillis();
            running.fail(new IllegalStateException("boom " + attempt));
            if (attempt < 3) {
                ProbeProcessor.Attempt next = awaitAttempt(processor, attempt);
                Job retried = next.context().job();
                assertThat(retried.failedReason()).isEqualTo("boom " + attempt);
                assertThat(retried.attemptsMade()).isEqualTo(attempt);
                assertThat(retried.processedOn()).as("next attempt starts its backoff after the failure (Redis clock)")
                        .isGreaterThanOrEqualTo(failedAfter + 400);
            }
        }

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);
        assertThat(job.failedReason()).isEqualTo("boom 3");
        assertThat(job.attemptsMade()).isEqualTo(3);
        assertThat(job.attemptsStarted()).isEqualTo(3);
        assertThat(job.fencingToken()).isEqualTo(tokens.get(2));
        assertThat(job.finishedOn()).isNotNull();
        List<JobEvent> events = redis.events(queue, jobId);
        assertThat(events).extracting(JobEvent::type).containsExactly("started", "started", "started", "failed");
        assertThat(events).extracting(JobEvent::fencingToken)
                .containsExactly(tokens.get(0), tokens.get(1), tokens.get(2), tokens.get(2));
        assertThat(events.get(3).data()).contains("boom 3");
        assertThat(redis.scheduledDelays(queue, jobId)).as("the backoffs scheduled").containsExactly(400L, 400L);
        assertThat(redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().failed()).arg(jobId))).isNotNull();
    }

    @Test
    void exponentialBackoffDoublesTheWaitAfterEachAttempt() {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom()
                .failure(new IllegalStateException("attempt " + context.job().attemptsStarted())));
        start(processor);
        String jobId = add(JobOptions.defaults().withAttempts(3).withBackoff(Backoff.exponential(Duration.ofMillis(300))));

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);

        // On the Redis clock: no retry before its backoff, none much later (the attempts fail at once).
        List<Long> startedOn = processor.attempts().stream().map(a -> a.context().job().processedOn()).toList();
        assertThat(startedOn).hasSize(3);
        assertThat(startedOn.get(1) - startedOn.get(0)).as("wait after attempt 1")
                .isBetween(300L, 300L + MAX_LATENESS.toMillis());
        assertThat(startedOn.get(2) - startedOn.get(1)).as("wait after attempt 2")
                .isBetween(600L, 600L + MAX_LATENESS.toMillis());
        assertThat(redis.scheduledDelays(queue, jobId)).as("the backoffs scheduled").containsExactly(300L, 600L);
        assertThat(job.attemptsMade()).isEqualTo(3);
        assertThat(job.failedReason()).isEqualTo("attempt 3");
        assertThat(redis.terminalEvents(queue, jobId)).extracting(JobEvent::type).containsExactly("failed");
    }

    @Test
    void unrecoverableFailureFailsAtOnceWithoutFurtherAttempts() {
        JobProcessor throwing = new JobProcessor() {
            @Override
            public String queue() {
                return queue.name();
            }

            @Override
            public Uni<Object> process(JobContext context) {
                throw new UnrecoverableJobException("bad input, retrying will not help");
            }
        };
        Worker worker = workers.create(throwing, TestWorkers.options("w-retry")
                .drainDelay(Duration.ofSeconds(2)).build());
        worker.start();
        String jobId = add(JobOptions.defaults().withAttempts(5).withBackoff(Backoff.fixed(Duration.ofMillis(100))));

        Job job = awaitJob(jobId, j -> j.state() == JobState.FAILED);

        assertThat(job.failedReason()).isEqualTo("bad input, retrying will not help");
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.attemptsStarted()).isEqualTo(1);
        assertThat(redis.eventTypes(queue, jobId)).containsExactly("started", "failed");
        await().atMost(TIMEOUT).until(() -> worker.stats().failed() == 1);
    }

    private void start(ProbeProcessor processor) {
        Worker worker = workers.create(processor, TestWorkers.options("w-retry")
                .drainDelay(Duration.ofSeconds(2)).build());
        worker.start();
    }
}
