package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import org.junit.jupiter.api.Test;

/**
 * Delayed jobs: due times on the Redis clock, and idle workers that start them at their due time, woken by
 * their own timer (the workers here block on the marker for up to 30 s, so a job that waited for the
 * blocking pop's timeout would start far too late).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DelayedJobsTest extends WorkerTestSupport {

    /** Generous for a shared 2-core machine, yet far below Redis's 100 ms blocking-timeout granularity. */
    private static final long MAX_LATENESS_MS = 50;

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
        assertThat(processor.startedJobIds()).containsExactly(first, second, third, fourth);
        for (String jobId : List.of(first, second, third, fourth)) {
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

        String later = add(JobOptions.defaults().withDelay(Duration.ofMillis(1500)));
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

    private void assertStartedOnTime(ProbeProcessor processor, String jobId) {
        Job started = processor.attempts().stream().map(attempt -> attempt.context().job())
                .filter(job -> job.id().equals(jobId)).findFirst().orElseThrow();
        long due = started.timestamp() + started.delay();
        assertThat(started.processedOn()).as("start of job %s on the Redis clock, due at %d", jobId, due)
                .isBetween(due, due + MAX_LATENESS_MS);
    }

    private Long markerScore(String member) {
        var score = redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().marker()).arg(member));
        return score == null ? null : (long) Double.parseDouble(score.toString());
    }
}
