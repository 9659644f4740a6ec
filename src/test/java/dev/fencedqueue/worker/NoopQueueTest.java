package dev.fencedqueue.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.testing.BulkAdd;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** {@code fq.worker.noop-queue}: the instance also serves that queue, completing each job at once. */
@QuarkusTest
@TestProfile(NoopQueueTest.WithNoopQueue.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class NoopQueueTest {

    static final String NOOP_QUEUE = "noop-smoke";

    /** The service with a no-op queue. */
    public static class WithNoopQueue implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("fq.worker.noop-queue", NOOP_QUEUE);
        }
    }

    @Inject
    Queues queues;

    @Inject
    WorkerManager manager;

    @Inject
    QueueInspector redis;

    @Test
    void completesEveryJobOfTheNoopQueueAtOnceWithANullResult() {
        assertThat(manager.workers()).extracting(Worker::queue).contains(NOOP_QUEUE, "deep-research");
        JobQueue queue = queues.queue(NOOP_QUEUE);

        List<String> ids = BulkAdd.jobs(queue, 200, JobOptions.defaults());

        await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream()
                .allMatch(id -> redis.job(queue, id).state() == JobState.COMPLETED));
        Job job = redis.job(queue, ids.get(0));
        assertThat(job.returnValue()).isEqualTo("null");
        assertThat(job.attemptsStarted()).as("ran once").isEqualTo(1);
        assertThat(job.fencingToken()).as("in one epoch").isPositive();
    }
}
