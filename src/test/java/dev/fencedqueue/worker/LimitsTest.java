package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.testing.Timeouts.MAX_LATENESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

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
 * The queue's fleet-wide limits, enforced in Redis at activation: a rate limit (job starts per window) and a
 * global concurrency cap (jobs active at once), each across two workers sharing one probe processor. That a limit
 * holds a job back is checked once the workers looked at the queue and wait again; starts are timed on the Redis
 * clock.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class LimitsTest extends WorkerTestSupport {

    @Test
    void rateLimitStartsAtMostMaxJobsPerWindowAcrossWorkers() {
        queue.setRateLimit(3, Duration.ofMillis(500)).await().atMost(TIMEOUT);
        for (int i = 0; i < 10; i++) {
            add();
        }
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
        workers.start(processor, TestWorkers.options("w-1").concurrency(2).build());
        workers.start(processor, TestWorkers.options("w-2").concurrency(2).build());

        await().atMost(TIMEOUT).until(() -> completed() == 10);

        // The limiter's windows: each opens with the first start after the previous one closed.
        List<Long> starts = processor.attempts().stream().map(a -> a.context().job().processedOn()).sorted().toList();
        List<List<Long>> windows = new ArrayList<>();
        for (long start : starts) {
            if (windows.isEmpty() || start >= windows.get(windows.size() - 1).get(0) + 500) {
                windows.add(new ArrayList<>());
            }
            windows.get(windows.size() - 1).add(start);
        }
        assertThat(windows).as("starts %s", starts).allSatisfy(window -> assertThat(window).hasSizeLessThanOrEqualTo(3))
                .hasSizeGreaterThanOrEqualTo(4);
        // A window fills up unless the machine stalls between two activations of it; not all of them do.
        assertThat(windows).as("the limit is used up, starts %s", starts)
                .anySatisfy(window -> assertThat(window).hasSize(3));
        for (int i = 1; i < windows.size(); i++) {
            long opened = windows.get(i).get(0);
            long previousClosed = windows.get(i - 1).get(0) + 500;
            assertThat(opened - previousClosed).as("workers resume when the window ends, woken by its end")
                    .isBetween(0L, MAX_LATENESS.toMillis());
        }
    }

    @Test
    void removingTheRateLimitLiftsIt() {
        queue.setRateLimit(1, Duration.ofSeconds(30)).await().atMost(TIMEOUT);
        ProbeProcessor processor = twoWorkersOfTwoSlotsWithThreeJobs();
        assertThat(processor.started()).as("one start per 30 s").isEqualTo(1);

        queue.setRateLimit(null, null).await().atMost(TIMEOUT);
        add();

        await().atMost(TIMEOUT).until(() -> processor.started() == 4);
    }

    @Test
    void globalConcurrencyCapsActiveJobsAcrossWorkersAndEveryJobStillCompletes() {
        queue.setGlobalConcurrency(3).await().atMost(TIMEOUT);
        ProbeProcessor processor = ProbeProcessor.of(queue.name(),
                context -> Uni.createFrom().item((Object) "done").onItem().delayIt().by(Duration.ofMillis(50)));
        workers.start(processor, TestWorkers.options("w-1").concurrency(5).build());
        workers.start(processor, TestWorkers.options("w-2").concurrency(5).build());
        AtomicLong mostActive = new AtomicLong();

        for (int i = 0; i < 30; i++) {
            add();
        }

        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(5)).until(() -> {
            mostActive.accumulateAndGet(activeCount(), Math::max);
            return completed() == 30;
        });
        assertThat(processor.maxRunning()).as("attempts running at once").isEqualTo(3);
        assertThat(mostActive.get()).as("LLEN active").isBetween(1L, 3L);
        assertThat(processor.started()).isEqualTo(30);
    }

    @Test
    void removingTheGlobalConcurrencyLiftsIt() {
        queue.setGlobalConcurrency(1).await().atMost(TIMEOUT);
        ProbeProcessor processor = twoWorkersOfTwoSlotsWithThreeJobs();
        assertThat(processor.started()).as("one job active at a time").isEqualTo(1);
        assertThat(activeCount()).isEqualTo(1);

        queue.setGlobalConcurrency(null).await().atMost(TIMEOUT);
        add();

        await().atMost(TIMEOUT).until(() -> processor.started() == 4);
        assertThat(activeCount()).isEqualTo(4);
    }

    @Test
    void slotFreedUnderTheGlobalCapByAPausedWorkerWakesAnotherWorker() {
        queue.setGlobalConcurrency(1).await().atMost(TIMEOUT);
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker first = workers.start(processor, TestWorkers.options("w-1").build());
        add();
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        WorkerOptions second = TestWorkers.options("w-2").build();
        workers.start(processor, second);
        add();
        awaitWorkersLookedAtQueue(second);
        assertThat(processor.started()).as("w-2 held back by the cap").isEqualTo(1);

        first.pause(false).await().atMost(TIMEOUT);
        processor.attempt(0).complete("done");

        // The paused worker's completion activates nothing for itself but leaves the marker for w-2, whose
        // blocking pop would otherwise time out only after its drain delay (30 s, longer than this wait).
        await().atMost(TIMEOUT).until(() -> processor.started() == 2);
        assertThat(processor.attempt(1).context().job().workerId()).isEqualTo("w-2");
    }

    /**
     * Starts two workers of two slots each that hold every job they run, adds three jobs and waits until one runs and
     * both workers have looked at the queue since (so that a second start, had the limit let one through, was seen).
     *
     * @return the workers' processor
     */
    private ProbeProcessor twoWorkersOfTwoSlotsWithThreeJobs() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        WorkerOptions w1 = TestWorkers.options("w-1").concurrency(2).build();
        WorkerOptions w2 = TestWorkers.options("w-2").concurrency(2).build();
        workers.start(processor, w1);
        workers.start(processor, w2);
        add();
        add();
        add();
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        awaitWorkersLookedAtQueue(w1, w2);
        return processor;
    }

    private long activeCount() {
        return redis.send(Request.cmd(Command.LLEN).arg(queue.keys().active())).toLong();
    }

    private long completed() {
        return queue.getJobCounts().await().atMost(TIMEOUT).get(JobState.COMPLETED);
    }
}
