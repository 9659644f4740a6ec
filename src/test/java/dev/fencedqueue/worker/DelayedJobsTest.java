package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.testing.Timeouts.MAX_LATENESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.testing.Timeouts;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import org.junit.jupiter.api.Test;

/**
 * Delayed jobs: due times on the Redis clock, and idle workers that start them at their due time, woken by
 * their own timer: never before it, and within {@link Timeouts#MAX_LATENESS} after it (the workers here block on
 * the marker for up to 30 s, so a job that waited for the blocking pop's timeout would start far too late).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DelayedJobsTest extends WorkerTestSupport {

    @Test
    void delayedJobIsDueAfterItsDelayOnTheRedisClock() {
        long before = redis.redisTimeMillis();
        String jobId = add(JobOptions.defaults().withDelay(Duration.ofSeconds(20)));
        long after = redis.redisTimeMillis();

        Job job = redis.job(queue, jobId);
        assertThat(job.state()).isEqualTo(JobState.DELAYED);
        assertThat(job.delay()).isEqualTo(20_000);
        Long due = redis.delayedDue(queue, jobId);
        assertThat(due).isEqualTo(job.timestamp() + 20_000).isBetween(before + 20_000, after + 20_000);
        assertThat(markerScore("delayed")).as("the marker carries the earliest due time").isEqualTo(due);
        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsEntry(JobState.DELAYED, 1L)
                .containsEntry(JobState.WAITING, 0L);
    }

    @Test
    void idleWorkerStartsDelayedJobAtItsDueTimeWithoutWaitingForTheBlockingTimeout() {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
        WorkerOptions options = TestWorkers.options("w-delayed").build();
        workers.start(processor, options);
        awaitBlockedOnMarker(options);

        List<String> jobIds = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String jobId = add(JobOptions.defaults().withDelay(Duration.ofMillis(300)));
            jobIds.add(jobId);
            await().atMost(TIMEOUT).until(() -> processor.started() == jobIds.size());
            awaitBlockedOnMarker(options);
        }

        for (String jobId : jobIds) {
            assertStartedOnTime(processor, jobId);
        }
    }

    @Test
    void delayedJobsStartInDueOrder() {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
        WorkerOptions options = TestWorkers.options("w-order").build();
        workers.start(processor, options);
        awaitBlockedOnMarker(options);

        String third = add(JobOptions.defaults().withDelay(Duration.ofMillis(900)));
        String first = add(JobOptions.defaults().withDelay(Duration.ofMillis(300)));
        String fourth = add(JobOptions.defaults().withDelay(Duration.ofMillis(1200)));
        String second = add(JobOptions.defaults().withDelay(Duration.ofMillis(600)));

        await().atMost(TIMEOUT).until(() -> processor.started() == 4);
        // In the order of their due times (Redis clock), which is the order of their delays unless the test stalled
        // between two adds for longer than the delays differ.
        List<String> byDueTime = Stream.of(third, first, fourth, second)
                .sorted(Comparator.comparingLong(jobId -> dueTime(processor, jobId))).toList();
        assertThat(processor.startedJobIds()).containsExactlyElementsOf(byDueTime);
        for (String jobId : byDueTime) {
            assertStartedOnTime(processor, jobId);
        }
    }

    @Test
    void earlierDelayedJobAddedWhileTheWorkerWaitsForALaterOneStartsOnTimeAndSoDoesTheLaterOne() {
        // Held attempts and free slots left: nothing but the due times can wake the worker.
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        WorkerOptions options = TestWorkers.options("w-earlier").concurrency(3).build();
        workers.start(processor, options);
        awaitBlockedOnMarker(options);

        // Due 3 s apart: the earlier one is still due first when the test stalls for a second or two between the adds.
        String later = add(JobOptions.defaults().withDelay(Duration.ofMillis(3300)));
        awaitBlockedOnMarker(options);
        String earlier = add(JobOptions.defaults().withDelay(Duration.ofMillis(300)));

        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        assertThat(processor.startedJobIds()).containsExactly(earlier);
        assertStartedOnTime(processor, earlier);
        await().atMost(TIMEOUT).until(() -> processor.started() == 2);
        assertThat(processor.startedJobIds()).containsExactly(earlier, later);
        assertStartedOnTime(processor, later);
    }

    @Test
    void busyWorkerStartsDueJobAsSoonAsASlotFrees() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-busy").build());
        String running = add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        String delayed = add(JobOptions.defaults().withDelay(Duration.ofMillis(200)));
        await().atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > redis.delayedDue(queue, delayed) + 100);

        processor.attempt(0).complete("done");

        await().atMost(TIMEOUT).until(() -> processor.started() == 2);
        assertThat(processor.startedJobIds()).containsExactly(running, delayed);
        assertThat(redis.job(queue, running).state()).isEqualTo(JobState.COMPLETED);
    }

    /** Asserts that the job started at its due time or after, within {@link Timeouts#MAX_LATENESS} (Redis clock). */
    private static void assertStartedOnTime(ProbeProcessor processor, String jobId) {
        long due = dueTime(processor, jobId);
        assertThat(started(processor, jobId).processedOn()).as("start of job %s on the Redis clock, due at %d", jobId, due)
                .isBetween(due, due + MAX_LATENESS.toMillis());
    }

    /** @return the due time of a started delayed job: the time it was added plus its delay (Redis clock, ms) */
    private static long dueTime(ProbeProcessor processor, String jobId) {
        Job started = started(processor, jobId);
        return started.timestamp() + started.delay();
    }

    private static Job started(ProbeProcessor processor, String jobId) {
        return processor.attempts().stream().map(attempt -> attempt.context().job())
                .filter(job -> job.id().equals(jobId)).findFirst().orElseThrow();
    }

    private Long markerScore(String member) {
        var score = redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().marker()).arg(member));
        return score == null ? null : (long) Double.parseDouble(score.toString());
    }
}
