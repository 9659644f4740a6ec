package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * {@code RateLimitError}): its job waits in the delayed set without counting an attempt, the worker's slot runs other
 * jobs meanwhile, and once due the job goes to the front of the wait list, ahead of jobs added after it.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RateLimitedJobTest extends WorkerTestSupport {

    @Test
    void aRateLimitedJobWaitsWithoutItsSlotThenKeepsItsPlace() {
        String limited = add();
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-1").build());
        ProbeProcessor.Attempt first = awaitAttempt(processor, 0);
        long firstStart = first.context().job().processedOn();
        first.fail(new RateLimitedException(Duration.ofMillis(300), "the LLM budget is spent"));
        awaitJob(limited, job -> job.state() == JobState.DELAYED);
        assertThat(redis.hash(queue.keys().job(limited))).containsEntry("dueFront", "1")
                .containsEntry("resumeReason", "rate-limited");

        String other = add();
        String later = add();
        ProbeProcessor.Attempt otherRun = awaitAttempt(processor, 1);
        assertThat(otherRun.context().jobId()).as("the slot runs another job meanwhile").isEqualTo(other);
        await("the limited job is due").atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > firstStart + 300);
        otherRun.complete("done");

        ProbeProcessor.Attempt again = awaitAttempt(processor, 2);
        assertThat(again.context().jobId()).as("due, it goes ahead of the job added after it").isEqualTo(limited);
        assertThat(again.context().job().processedOn() - firstStart).isGreaterThanOrEqualTo(300);
        again.complete("done");
        assertThat(awaitAttempt(processor, 3).context().jobId()).isEqualTo(later);
        processor.attempt(3).complete("done");

        Job done = awaitJob(limited, job -> job.state() == JobState.COMPLETED);
        assertThat(done.attemptsStarted()).as("the handed-back run is not counted").isEqualTo(1);
        assertThat(done.attemptsMade()).isEqualTo(1);
        assertThat(redis.hash(queue.keys().job(limited))).doesNotContainKey("dueFront");
    }
}
