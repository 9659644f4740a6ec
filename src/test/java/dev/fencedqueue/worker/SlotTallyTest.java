package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.tenancy.TenantSlotTime;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A worker's slot time by tenant ({@link ActiveJobs#takeSlotTime}): a running attempt counts each time the tally is taken, from where
 * the last take left it, so that a long job's time falls into the minute it was spent; an ended one counts its rest
 * once.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class SlotTallyTest extends WorkerTestSupport {

    @Inject
    TenantSlotTime slotTime;

    @Test
    void countsARunningAttemptsSlotTimeEachTimeOnceAndItsRestWhenItEnds() {
        long since = System.nanoTime();
        String job = add(JobOptions.defaults().withTenant("acme"));
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker worker = workers.start(processor, TestWorkers.options("w-1").build());
        slotTime.stopped(worker).await().atMost(TIMEOUT); // the takes below are the only ones
        ProbeProcessor.Attempt attempt = awaitAttempt(processor, 0);

        awaitLockRenewed(job, 1);
        Map<String, Long> first = worker.takeSlotTime().await().atMost(TIMEOUT);
        assertThat(first).containsOnlyKeys("acme");
        assertThat(first.get("acme")).as("running, counted up to now").isPositive();
        awaitLockRenewed(job, 1);
        Map<String, Long> second = worker.takeSlotTime().await().atMost(TIMEOUT);
        assertThat(second.get("acme")).as("counted again from the first take").isPositive();
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
        assertThat(first.get("acme") + second.get("acme")).as("no time counted twice").isLessThanOrEqualTo(elapsed);

        awaitLockRenewed(job, 1);
        attempt.complete("done");
        await().atMost(TIMEOUT).until(() -> worker.stats().completed() == 1);
        assertThat(worker.takeSlotTime().await().atMost(TIMEOUT).get("acme")).as("the rest, once it ended").isPositive();
        assertThat(worker.takeSlotTime().await().atMost(TIMEOUT)).as("nothing runs any more").isEmpty();
    }
}
