package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.fencedqueue.redis.Replies;
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
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * {@code removeOnComplete} / {@code removeOnFail}: {@code true}, a count, an age, or both, applied when a job
 * ends; a removed job leaves no key behind (hash, lock, fencing token, event stream). In the tests the queue event
 * stream is bounded at 1,000 entries ({@code fq.events.queue-stream-max-length}), so that the memory test below starts
 * at that bound.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RetentionTest extends QueueTestSupport {

    @Inject
    EventsConfig events;

    @Test
    void removeOnCompleteTrueRemovesTheJobWithAllItsKeysAsItCompletesAndOnlyThatJob() {
        ProbeProcessor processor = completing();
        String kept = add(JobOptions.defaults());
        String removed = add(JobOptions.defaults().withRemoveOnComplete(KeepJobs.NONE));
        workers.start(processor, TestWorkers.options("w-none").build());

        await().atMost(TIMEOUT).until(() -> redis.job(queue, removed) == null);
        assertThat(processor.startedJobIds()).containsExactly(kept, removed);
        assertThat(redis.jobKeys(queue, removed)).as("hash, lock, fencing token and event stream").isEmpty();
        assertThat(completedIds()).as("a job kept by its own options stays (BullMQ's removeOnComplete: true)")
                .containsExactly(kept);
        assertThat(redis.job(queue, kept).state()).isEqualTo(JobState.COMPLETED);
        assertThat(redis.queueEvents(queue)).extracting(QueueEvent::event, QueueEvent::jobId)
                .contains(tuple("completed", removed));
    }

    @Test
    void removeOnCompleteCountKeepsOnlyTheNewestJobs() {
        List<String> jobIds = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            jobIds.add(add(JobOptions.defaults().withRemoveOnComplete(KeepJobs.count(2))));
        }
        workers.start(completing(), TestWorkers.options("w-count").build());

        await().atMost(TIMEOUT).until(() -> redis.job(queue, jobIds.get(4)).state() == JobState.COMPLETED);

        assertThat(completedIds()).containsExactly(jobIds.get(4), jobIds.get(3));
        for (String gone : jobIds.subList(0, 3)) {
            assertThat(redis.jobKeys(queue, gone)).as("keys of job %s", gone).isEmpty();
        }
        assertThat(redis.jobKeys(queue, jobIds.get(4))).containsExactly(queue.keys().job(jobIds.get(4)),
                queue.keys().events(jobIds.get(4)));
    }

    @Test
    void removeOnCompleteAgeRemovesJobsThatFinishedLongerAgoWhenTheNextOneFinishes() {
        workers.start(completing(), TestWorkers.options("w-age").build());
        JobOptions keep300ms = JobOptions.defaults().withRemoveOnComplete(KeepJobs.age(Duration.ofMillis(300)));
        String old = add(keep300ms);
        Job finished = awaitJob(old, job -> job.state() == JobState.COMPLETED);
        String recent = add(keep300ms);
        awaitJob(recent, job -> job.state() == JobState.COMPLETED);
        assertThat(completedIds()).as("within the age both stay").containsExactly(recent, old);

        await().atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > finished.finishedOn() + 300);
        String newest = add(keep300ms);
        awaitJob(newest, job -> job.state() == JobState.COMPLETED);

        assertThat(completedIds()).contains(newest).doesNotContain(old);
        assertThat(redis.jobKeys(queue, old)).isEmpty();
    }

    @Test
    void countAndAgeTogetherRemoveByWhicheverLimitIsReached() {
        workers.start(completing(), TestWorkers.options("w-both").build());
        JobOptions keep = JobOptions.defaults().withRemoveOnComplete(new KeepJobs(3, Duration.ofMillis(400)));
        List<String> first = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            first.add(add(keep));
        }
        Job last = awaitJob(first.get(4), job -> job.state() == JobState.COMPLETED);
        assertThat(completedIds()).as("the count removes the oldest")
                .containsExactly(first.get(4), first.get(3), first.get(2));

        await().atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > last.finishedOn() + 400);
        String newest = add(keep);
        awaitJob(newest, job -> job.state() == JobState.COMPLETED);

        assertThat(completedIds()).as("the age removes the rest").containsExactly(newest);
        first.forEach(id -> assertThat(redis.jobKeys(queue, id)).isEmpty());
    }

    @Test
    void removeOnFailAppliesToJobsThatFailedForGood() {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(),
                context -> Uni.createFrom().failure(new IllegalStateException("no")));
        workers.start(processor, TestWorkers.options("w-fail").build());
        String kept = add(JobOptions.defaults().withRemoveOnFail(KeepJobs.count(1)));
        String removed = add(JobOptions.defaults().withAttempts(2).withRemoveOnFail(KeepJobs.NONE));

        await().atMost(TIMEOUT).until(() -> processor.started() == 3 && redis.job(queue, removed) == null);
        assertThat(redis.jobKeys(queue, removed)).isEmpty();
        assertThat(failedIds()).containsExactly(kept);

        String last = add(JobOptions.defaults().withRemoveOnFail(KeepJobs.count(1)));
        awaitJob(last, job -> job.state() == JobState.FAILED);
        assertThat(failedIds()).as("the count trims the whole failed set").containsExactly(last);
        assertThat(redis.jobKeys(queue, kept)).isEmpty();
    }

    @Test
    void removeOnFailAppliesToAbortedJobs() {
        String aborted = add(JobOptions.defaults().withRemoveOnFail(KeepJobs.NONE));

        queue.abort(aborted, "not wanted").await().atMost(TIMEOUT);

        assertThat(redis.jobKeys(queue, aborted)).isEmpty();
        assertThat(failedIds()).isEmpty();
    }

    @Test
    void removeOnCompleteDoesNotApplyToFailedJobsNorTheOtherWayRound() {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> "fail".equals(context.job().name())
                ? Uni.createFrom().failure(new IllegalStateException("no"))
                : Uni.createFrom().item("done"));
        workers.start(processor, TestWorkers.options("w-sets").build());
        JobOptions options = JobOptions.defaults().withRemoveOnComplete(KeepJobs.NONE).withRemoveOnFail(KeepJobs.ALL);
        String failed = queue.add("fail", null, options).await().atMost(TIMEOUT).jobId();
        String completed = queue.add("complete", null, options).await().atMost(TIMEOUT).jobId();

        await().atMost(TIMEOUT).until(() -> redis.job(queue, completed) == null);
        assertThat(redis.job(queue, failed).state()).isEqualTo(JobState.FAILED);
        assertThat(failedIds()).containsExactly(failed);
    }

    @Test
    void keyCountAndMemoryStayFlatOverTenThousandJobsWithRetention() {
        ProbeProcessor processor = completing();
        workers.start(processor, TestWorkers.options("w-flat").concurrency(50).build());
        JobOptions options = JobOptions.defaults().withEventStream(false).withRemoveOnComplete(KeepJobs.count(100));

        addAndComplete(2_000, options);
        List<String> keysAt2k = lasting(redis.keys(queue));
        long memoryAt2k = settledMemory();
        addAndComplete(8_000, options);
        List<String> allAt10k = redis.keys(queue);
        List<String> keysAt10k = lasting(allAt10k);
        long memoryAt10k = settledMemory();

        // The finishing calls' records (a retry's answer), one hash a second, live for the lock duration (1 s here)
        // after their second ends: bounded by time.
        allAt10k.stream().filter(key -> key.contains("}:finished:")).forEach(key -> assertThat(
                redis.send(Request.cmd(Command.PTTL).arg(key)).toLong()).as("PTTL of %s", key).isNotEqualTo(-1L)
                .isLessThanOrEqualTo(2_000L));

        assertThat(processor.started()).isEqualTo(10_000);
        assertThat(jobKeyCount(keysAt10k)).as("the hashes of the 100 jobs kept").isEqualTo(100)
                .isEqualTo(jobKeyCount(keysAt2k));
        assertThat(keysAt10k.size()).as("keys %s", keysAt10k.stream().filter(key -> !key.contains("}:job:")).toList())
                .isBetween(keysAt2k.size() - 3, keysAt2k.size() + 3).isLessThan(100 + 10);
        assertThat(completedIds()).hasSize(100);
        assertThat(redis.queueEventsLength(queue)).isLessThan(events.queueStreamMaxLength() + 200);
        // 8,000 leaked jobs would take megabytes; what moves here is client buffers and allocator noise.
        assertThat(memoryAt10k - memoryAt2k).as("used_memory went from %d to %d bytes", memoryAt2k, memoryAt10k)
                .isLessThan(384 * 1024);
    }

    /** @return the keys but the finishing calls' records, which expire the lock duration after their second */
    private static List<String> lasting(List<String> keys) {
        return keys.stream().filter(key -> !key.contains("}:finished:")).toList();
    }

    private void addAndComplete(int count, JobOptions options) {
        BulkAdd.jobs(queue, count, options);
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Map<JobState, Long> counts = queue.getJobCounts().await().atMost(TIMEOUT);
            return counts.get(JobState.WAITING) == 0 && counts.get(JobState.ACTIVE) == 0;
        });
    }

    /**
     * @return Redis's {@code used_memory}, the lowest of five readings (client buffers come and go) after the
     *         slow log, which keeps the arguments of up to 128 slow commands, was emptied
     */
    private long settledMemory() {
        redis.send(Request.cmd(Command.SLOWLOG).arg("RESET"));
        AtomicLong lowest = new AtomicLong(Long.MAX_VALUE);
        AtomicLong readings = new AtomicLong();
        await().pollInterval(Duration.ofMillis(50)).atMost(TIMEOUT).until(() -> {
            lowest.accumulateAndGet(redis.usedMemory(), Math::min);
            return readings.incrementAndGet() == 5;
        });
        return lowest.get();
    }

    private static long jobKeyCount(List<String> keys) {
        return keys.stream().filter(key -> key.contains("}:job:")).count();
    }

    private ProbeProcessor completing() {
        return ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
    }

    private List<String> completedIds() {
        return ids(queue.keys().completed());
    }

    private List<String> failedIds() {
        return ids(queue.keys().failed());
    }

    /** @return the members of a finished set, newest first */
    private List<String> ids(String key) {
        return Replies.elements(redis.send(Request.cmd(Command.ZRANGE).arg(key).arg(0).arg(-1).arg("REV")))
                .stream().map(Object::toString).toList();
    }
}
