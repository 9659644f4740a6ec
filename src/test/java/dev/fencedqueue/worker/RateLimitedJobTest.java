package dev.fencedqueue.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * A run that cannot go on yet because a rate limit outside the queue is spent ({@link RateLimitedException}, BullMQ's
 * {@code RateLimitError} with {@code Worker.rateLimit}): its job goes back to the front of the wait list without
 * counting an attempt, and the queue's dispatch is held for the delay, so that no worker starts it, nor a job added
 * after it, before the limit may admit one; then it runs first.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RateLimitedJobTest extends WorkerTestSupport {

    @Test
    void aRateLimitedJobKeepsItsPlaceAndNoJobStartsUntilTheHoldEnds() {
        String limited = add();
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-1").concurrency(2).build());
        workers.start(processor, TestWorkers.options("w-2").concurrency(2).build());
        ProbeProcessor.Attempt first = awaitAttempt(processor, 0);
        long firstStart = first.context().job().processedOn();
        first.fail(new RateLimitedException(Duration.ofMillis(500), "the LLM budget is spent"));
        awaitJob(limited, job -> job.state() == JobState.WAITING);
        assertThat(redis.hash(queue.keys().job(limited))).containsEntry("resumeReason", "rate-limited");

        String later = add();
        ProbeProcessor.Attempt again = awaitAttempt(processor, 1);
        assertThat(again.context().jobId()).as("no worker took the job added after it while the queue was held")
                .isEqualTo(limited);
        assertThat(again.context().job().processedOn() - firstStart).as("it ran once the hold ended")
                .isGreaterThanOrEqualTo(500);
        again.complete("done");
        assertThat(awaitAttempt(processor, 2).context().jobId()).isEqualTo(later);
        processor.attempt(2).complete("done");

        Job done = awaitJob(limited, job -> job.state() == JobState.COMPLETED);
        assertThat(done.attemptsStarted()).as("the handed-back run is not counted").isEqualTo(1);
        assertThat(done.attemptsMade()).isEqualTo(1);
    }
}
