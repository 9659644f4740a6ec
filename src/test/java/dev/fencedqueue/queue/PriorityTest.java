package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import org.junit.jupiter.api.Test;

/**
 * The order in which ready jobs run: jobs are added while no worker runs, then one worker with one slot
 * records the order it starts them in.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class PriorityTest extends QueueTestSupport {

    @Test
    void lowerPriorityNumberRunsFirst() {
        String five = add(5);
        String one = add(1);
        String three = add(3);
        String two = add(2);
        String highest = add(JobOptions.MAX_PRIORITY);

        assertThat(runAll(5)).containsExactly(one, two, three, five, highest);
    }

    @Test
    void jobsOfTheSamePriorityRunInTheOrderTheyWereAdded() {
        String a1 = add(2);
        String b1 = add(1);
        String a2 = add(2);
        String b2 = add(1);
        String a3 = add(2);
        String b3 = add(1);

        assertThat(runAll(6)).containsExactly(b1, b2, b3, a1, a2, a3);
    }

    @Test
    void jobsWithoutPriorityRunBeforePrioritizedOnes() {
        String urgent = add(1);
        String plain1 = add(0);
        String later = add(7);
        String plain2 = add(0);

        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsEntry(JobState.WAITING, 2L)
                .containsEntry(JobState.PRIORITIZED, 2L);
        assertThat(runAll(4)).containsExactly(plain1, plain2, urgent, later);
    }

    @Test
    void lifoJobGoesToTheFrontOfTheWaitList() {
        String first = add(0);
        String second = add(0);
        String lifo1 = add(JobOptions.defaults().withLifo(true));
        String third = add(0);
        String lifo2 = add(JobOptions.defaults().withLifo(true));

        assertThat(queue.getJobs(JobState.WAITING, 0, 10).await().atMost(TIMEOUT)).extracting(Job::id)
                .containsExactly(lifo2, lifo1, first, second, third);
        assertThat(runAll(5)).containsExactly(lifo2, lifo1, first, second, third);
    }

    @Test
    void delayedJobKeepsItsPriorityWhenItBecomesReady() {
        String delayedUrgent = add(JobOptions.defaults().withPriority(1).withDelay(Duration.ofMillis(100)));
        String low = add(5);
        await().atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > redis.delayedDue(queue, delayedUrgent));

        assertThat(runAll(2)).containsExactly(delayedUrgent, low);
    }

    /** Starts one worker with one slot and no-op attempts, and returns the ids in the order it started them. */
    private List<String> runAll(int count) {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
        workers.start(processor, TestWorkers.options("w-order").build());
        await().atMost(TIMEOUT).until(() -> processor.started() == count);
        await().atMost(TIMEOUT).until(() -> queue.getJobCounts().await().atMost(TIMEOUT).get(JobState.COMPLETED) == count);
        return processor.startedJobIds();
    }

    private String add(int priority) {
        return add(JobOptions.defaults().withPriority(priority));
    }
}
