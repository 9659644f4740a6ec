package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.KeepJobs;
import dev.fencedqueue.testing.BulkAdd;
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

/**
 * What a job costs Redis beyond its own data: a small job's hash stays in Redis's compact encoding (a listpack, read
 * in one pass) from its add to its end, and finishing calls keep their records (for a retried call) in one expiring
 * key a second rather than one per call.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RedisFootprintTest extends QueueTestSupport {

    private static final Duration RECORD_LOCK = Duration.ofSeconds(30);

    @Test
    void aSmallJobWithRetriesAndBackoffStaysACompactHashWhileItRuns() {
        String id = add(Map.of("n", 1), JobOptions.defaults().withAttempts(3)
                .withBackoff(Backoff.exponential(Duration.ofSeconds(1))).withTimeout(Duration.ofMinutes(10)));
        assertThat(encoding(id)).as("added").isEqualTo("listpack");

        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("worker-F").build());
        awaitJob(id, job -> job.state() == JobState.ACTIVE);
        assertThat(encoding(id)).as("running: its lock, fencing token and worker written").isEqualTo("listpack");

        processor.attempt(0).complete("done");
        awaitJob(id, job -> job.state() == JobState.COMPLETED);
        assertThat(encoding(id)).as("completed").isEqualTo("listpack");
    }

    @Test
    void finishingCallsKeepTheirRecordsInOneExpiringKeyASecond() {
        long start = redis.redisTimeMillis();
        List<String> ids = BulkAdd.jobs(queue, 300, JobOptions.defaults().withEventStream(false)
                .withRemoveOnComplete(KeepJobs.NONE));
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
        // A lock of 30 s, so that no record expires while the test reads them, however slow the machine.
        workers.start(processor, TestWorkers.options("worker-F").concurrency(10)
                .lock(RECORD_LOCK, Duration.ofSeconds(10)).build());

        await().atMost(TIMEOUT).until(() -> processor.startedJobIds().size() == ids.size()
                && redis.keys(queue).stream().noneMatch(key -> key.contains(":job:")));
        long seconds = (redis.redisTimeMillis() - start) / 1000 + 2;

        List<String> records = redis.keys(queue).stream().filter(key -> key.contains("}:finished:")).toList();
        assertThat(records).as("records of the finishing calls").isNotEmpty()
                .hasSizeLessThanOrEqualTo((int) seconds);
        long calls = 0;
        for (String key : records) {
            assertThat(redis.send(Request.cmd(Command.TYPE).arg(key)).toString()).isEqualTo("hash");
            long second = Long.parseLong(key.substring(key.lastIndexOf(':') + 1));
            assertThat(redis.send(Request.cmd(Command.PEXPIRETIME).arg(key)).toLong())
                    .as("%s expires the lock duration after its second ends", key)
                    .isEqualTo((second + 1) * 1000 + RECORD_LOCK.toMillis());
            calls += redis.send(Request.cmd(Command.HLEN).arg(key)).toLong();
        }
        // Every call completes at most 10 jobs at concurrency 10, and leaves one record: 300 jobs make 30 calls or more,
        // however long they took, in at most one key per second they spanned.
        assertThat(calls).as("one record per finishing call").isGreaterThanOrEqualTo(ids.size() / 10);
    }

    private String encoding(String jobId) {
        return redis.send(Request.cmd(Command.OBJECT).arg("ENCODING").arg(redis.jobKeys(queue, jobId).get(0)))
                .toString();
    }
}
