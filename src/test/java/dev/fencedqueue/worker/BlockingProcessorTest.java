package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.TestWorkers.options;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import org.junit.jupiter.api.Test;

/**
 * Processors that block ({@link JobProcessor#isBlocking()}) run off the event loop: while one blocks for twice
 * its lock duration, its lock is renewed, its fencing token stays current, and another job on the same
 * instance keeps renewing and finishes; cancelling a blocked processor interrupts its thread.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class BlockingProcessorTest extends QueueTestSupport {

    /** Twice the test lock duration of {@link dev.fencedqueue.testing.TestWorkers#options(String)}. */
    private static final Duration BLOCK = Duration.ofSeconds(2);

    /** A blocking processor: its attempt holds its thread as JDBC or file I/O would. */
    private static final class Blocker implements JobProcessor {

        final String queue;
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<Thread> thread = new AtomicReference<>();
        final AtomicBoolean onEventLoop = new AtomicBoolean();
        final AtomicBoolean interrupted = new AtomicBoolean();
        final CountDownLatch started = new CountDownLatch(1);

        Blocker(String queue) {
            this.queue = queue;
        }

        @Override
        public String queue() {
            return queue;
        }

        @Override
        public boolean isBlocking() {
            return true;
        }

        @Override
        public Uni<Object> process(JobContext context) {
            thread.set(Thread.currentThread());
            onEventLoop.set(Context.isOnEventLoopThread());
            // A blocking processor may await its fenced writes.
            context.progress(1, "before blocking").await().atMost(TIMEOUT);
            started.countDown();
            long start = System.nanoTime();
            try {
                // Blocks until released, and for at least twice the lock duration.
                release.await(30, TimeUnit.SECONDS);
                long left = BLOCK.toNanos() - (System.nanoTime() - start);
                if (left > 0) {
                    new CountDownLatch(1).await(left, TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                interrupted.set(true);
                Thread.currentThread().interrupt();
                return Uni.createFrom().failure(e);
            }
            context.progress(100, "after blocking").await().atMost(TIMEOUT);
            return Uni.createFrom().item(Map.of("blockedMs", (System.nanoTime() - start) / 1_000_000));
        }
    }

    @Test
    void blockingProcessorKeepsItsLockAndTokenWhileAnotherJobOnTheInstanceFinishes() {
        Blocker blocker = new Blocker(queue.name());
        workers.start(blocker, options("w-blocking").build());
        JobQueue other = redis.freshQueue();
        workers.start(ticker(other.name()), options("w-async").build());

        String blocked = queue.add("block", Map.of(), JobOptions.defaults()).await().atMost(TIMEOUT).jobId();
        await("the blocking processor started").atMost(TIMEOUT).until(() -> blocker.started.getCount() == 0);
        String async = other.add("tick", Map.of(), JobOptions.defaults()).await().atMost(TIMEOUT).jobId();

        await("the other job finishes while the first one blocks").atMost(TIMEOUT)
                .until(() -> redis.job(other, async).state() == JobState.COMPLETED);
        assertThat(redis.job(queue, blocked).state()).as("still blocked").isEqualTo(JobState.ACTIVE);
        blocker.release.countDown();

        await().atMost(TIMEOUT).until(() -> redis.job(queue, blocked).state() == JobState.COMPLETED);
        Job job = redis.job(queue, blocked);
        List<JobEvent> events = redis.events(queue, blocked);
        assertThat(job.fencingToken()).as("never taken over").isPositive().isEqualTo(events.get(0).fencingToken());
        assertThat(events).extracting(JobEvent::fencingToken).as("one epoch").containsOnly(job.fencingToken());
        assertThat(job.attemptsStarted()).isEqualTo(1);
        assertThat(job.stalledCounter()).isZero();
        assertThat(job.returnValue()).matches("\\{\"blockedMs\":\\d+}");
        assertThat(Long.parseLong(job.returnValue().replaceAll("\\D", ""))).as("ms blocked")
                .isGreaterThanOrEqualTo(BLOCK.toMillis());
        assertThat(redis.eventTypes(queue, blocked)).containsExactly("started", "progress", "progress", "completed");
        assertThat(blocker.onEventLoop).as("called on the event loop").isFalse();
        assertThat(blocker.thread.get().getName()).doesNotContain("eventloop");
    }

    @Test
    void abortingABlockedProcessorInterruptsItsThread() {
        Blocker blocker = new Blocker(queue.name());
        Worker worker = workers.start(blocker, options("w-interrupted").build());
        String jobId = queue.add("block", Map.of(), JobOptions.defaults()).await().atMost(TIMEOUT).jobId();
        await().atMost(TIMEOUT).until(() -> blocker.started.getCount() == 0);

        queue.abort(jobId, "stop the blocked job").await().atMost(TIMEOUT);

        await("the blocked thread is interrupted").atMost(TIMEOUT).untilTrue(blocker.interrupted);
        await().atMost(TIMEOUT).until(() -> worker.activeJobIds().isEmpty());
        Job job = redis.job(queue, jobId);
        assertThat(job.state()).isEqualTo(JobState.ABORTED);
        assertThat(redis.eventTypes(queue, jobId)).containsExactly("started", "progress", "aborted");
    }

    /** A non-blocking processor on the event loop: ten progress events 100 ms apart, then done. */
    private static JobProcessor ticker(String queue) {
        return new JobProcessor() {
            @Override
            public String queue() {
                return queue;
            }

            @Override
            public Uni<Object> process(JobContext context) {
                return Multi.createFrom().ticks().every(Duration.ofMillis(100)).select().first(10)
                        .onItem().transformToUniAndConcatenate(tick -> context.progress((int) (tick * 10), "tick"))
                        .collect().last().replaceWith("ticked");
            }
        };
    }
}
