package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.testing.BulkAdd;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import org.junit.jupiter.api.Test;

/** Queries (counts, pages of jobs by state) and operator actions (remove, retry, clean, drain, obliterate). */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class MaintenanceTest extends QueueTestSupport {

    @Test
    void countsJobsInEveryState() {
        Jobs jobs = jobsInEveryState();

        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsExactlyInAnyOrderEntriesOf(Map.of(
                JobState.WAITING, 2L, JobState.PAUSED, 0L, JobState.PRIORITIZED, 1L, JobState.DELAYED, 1L,
                JobState.ACTIVE, 1L, JobState.COMPLETED, 1L, JobState.FAILED, 2L, JobState.WAITING_CHILDREN, 0L));
        assertThat(jobs.waiting()).hasSize(2);
    }

    @Test
    void listsJobsOfAStateAPageAtATimeInTheirOrder() {
        List<String> waiting = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(add(JobOptions.defaults()));
        }
        String in3s = add(JobOptions.defaults().withDelay(Duration.ofSeconds(30)));
        String in1s = add(JobOptions.defaults().withDelay(Duration.ofSeconds(10)));
        String in2s = add(JobOptions.defaults().withDelay(Duration.ofSeconds(20)));
        String low = add(JobOptions.defaults().withPriority(9));
        String high = add(JobOptions.defaults().withPriority(1));

        assertThat(page(JobState.WAITING, 0, 2)).containsExactly(waiting.get(0), waiting.get(1));
        assertThat(page(JobState.WAITING, 2, 2)).containsExactly(waiting.get(2), waiting.get(3));
        assertThat(page(JobState.WAITING, 4, 2)).containsExactly(waiting.get(4));
        assertThat(page(JobState.WAITING, 5, 2)).isEmpty();
        assertThat(page(JobState.DELAYED, 0, 10)).containsExactly(in1s, in2s, in3s);
        assertThat(page(JobState.DELAYED, 1, 1)).containsExactly(in2s);
        assertThat(page(JobState.PRIORITIZED, 0, 10)).containsExactly(high, low);
        assertThat(queue.getJobs(JobState.WAITING, 0, 1).await().atMost(TIMEOUT).get(0).state())
                .isEqualTo(JobState.WAITING);

        queue.pause().await().atMost(TIMEOUT);
        assertThat(page(JobState.PAUSED, 0, 10)).as("paused lists the wait list").isEqualTo(waiting);
        queue.resume().await().atMost(TIMEOUT);

        ProbeProcessor processor = completing();
        queue.maintenance().drain(false).await().atMost(TIMEOUT);
        List<String> completed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            completed.add(add(JobOptions.defaults()));
        }
        workers.start(processor, TestWorkers.options("w-pages").build());
        await().atMost(TIMEOUT).until(() -> page(JobState.COMPLETED, 0, 10).size() == 3);
        assertThat(page(JobState.COMPLETED, 0, 10)).as("newest first").containsExactly(completed.get(2), completed.get(1),
                completed.get(0));
        assertThat(page(JobState.COMPLETED, 1, 1)).containsExactly(completed.get(1));

        assertThatThrownBy(() -> queue.getJobs(JobState.WAITING, -1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.getJobs(JobState.WAITING, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.getJobs(JobState.WAITING, 0, 1001)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.getJobs(JobState.ABORTED, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void removeRefusesARunningJobAndRemovesAnyOtherWithAllItsKeys() {
        Jobs jobs = jobsInEveryState();
        QueueMaintenance maintenance = queue.maintenance();

        assertThatThrownBy(() -> maintenance.remove(jobs.active()).await().atMost(TIMEOUT))
                .isInstanceOf(JobStateConflictException.class).hasMessageContaining(jobs.active());
        assertThat(redis.job(queue, jobs.active()).state()).isEqualTo(JobState.ACTIVE);
        assertThat(redis.activeIds(queue)).containsExactly(jobs.active());

        assertThat(maintenance.remove(jobs.completed()).await().atMost(TIMEOUT)).isEqualTo(JobState.COMPLETED);
        assertThat(maintenance.remove(jobs.failed()).await().atMost(TIMEOUT)).isEqualTo(JobState.FAILED);
        assertThat(maintenance.remove(jobs.waiting().get(0)).await().atMost(TIMEOUT)).isEqualTo(JobState.WAITING);
        assertThat(maintenance.remove(jobs.delayed()).await().atMost(TIMEOUT)).isEqualTo(JobState.DELAYED);
        assertThat(maintenance.remove(jobs.prioritized()).await().atMost(TIMEOUT)).isEqualTo(JobState.PRIORITIZED);

        for (String removed : List.of(jobs.completed(), jobs.failed(), jobs.waiting().get(0), jobs.delayed(),
                jobs.prioritized())) {
            assertThat(redis.jobKeys(queue, removed)).as("keys of %s", removed).isEmpty();
        }
        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsEntry(JobState.WAITING, 1L)
                .containsEntry(JobState.COMPLETED, 0L).containsEntry(JobState.FAILED, 1L)
                .containsEntry(JobState.DELAYED, 0L).containsEntry(JobState.PRIORITIZED, 0L);
        assertThat(redis.queueEvents(queue)).filteredOn(event -> event.event().equals("removed"))
                .extracting(event -> event.fields().get("prev"))
                .containsExactly("completed", "failed", "waiting", "delayed", "prioritized");
        assertThatThrownBy(() -> maintenance.remove(jobs.completed()).await().atMost(TIMEOUT))
                .isInstanceOf(JobNotFoundException.class);
    }

    @Test
    void retryRunsAFailedJobAgainWithFreshAttemptsInANewEpoch() {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> {
            int attempt = context.job().attemptsStarted();
            return attempt <= 2 ? Uni.createFrom().failure(new IllegalStateException("attempt " + attempt + " failed"))
                    : Uni.createFrom().item("third time lucky");
        });
        workers.start(processor, TestWorkers.options("w-retry").build());
        String jobId = add(JobOptions.defaults().withAttempts(2));
        Job failed = awaitJob(jobId, job -> job.state() == JobState.FAILED);
        assertThat(failed.attemptsMade()).isEqualTo(2);
        assertThat(failed.fencingToken()).as("the second attempt's epoch")
                .isGreaterThan(processor.attempt(0).fencingToken()).isEqualTo(processor.attempt(1).fencingToken());

        queue.maintenance().retry(jobId).await().atMost(TIMEOUT);

        Job completed = awaitJob(jobId, job -> job.state() == JobState.COMPLETED);
        ProbeProcessor.Attempt retried = processor.attempt(2);
        assertThat(retried.fencingToken()).as("a new epoch").isGreaterThan(failed.fencingToken());
        assertThat(retried.context().job().attemptsMade()).as("fresh attempts").isZero();
        assertThat(retried.context().job().failedReason()).isNull();
        assertThat(completed.attemptsMade()).isEqualTo(1);
        assertThat(completed.returnValue()).isEqualTo("\"third time lucky\"");
        assertThat(redis.events(queue, jobId)).extracting(JobEvent::type)
                .containsExactly("started", "started", "failed", "started", "completed");

        assertThatThrownBy(() -> queue.maintenance().retry(jobId).await().atMost(TIMEOUT))
                .as("a completed job").isInstanceOf(JobStateConflictException.class).hasMessageContaining("has not failed");
        String aborted = add(JobOptions.defaults().withDelay(Duration.ofMinutes(1)));
        queue.abort(aborted, "stop").await().atMost(TIMEOUT);
        assertThatThrownBy(() -> queue.maintenance().retry(aborted).await().atMost(TIMEOUT))
                .as("an aborted job").isInstanceOf(JobStateConflictException.class);
        assertThatThrownBy(() -> queue.maintenance().retry("no-such-job").await().atMost(TIMEOUT))
                .isInstanceOf(JobNotFoundException.class);
    }

    @Test
    void cleanRemovesJobsOfAStateOlderThanTheGraceUpToTheLimit() {
        workers.start(completing(), TestWorkers.options("w-clean").build());
        List<String> old = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            old.add(add(JobOptions.defaults()));
        }
        Job lastOld = awaitJob(old.get(2), job -> job.state() == JobState.COMPLETED);
        await().atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > lastOld.finishedOn() + 300);
        String recent = add(JobOptions.defaults());
        awaitJob(recent, job -> job.state() == JobState.COMPLETED);

        List<String> cleaned = queue.maintenance().clean(JobState.COMPLETED, Duration.ofMillis(300), 10)
                .await().atMost(TIMEOUT);

        assertThat(cleaned).containsExactlyInAnyOrderElementsOf(old);
        old.forEach(id -> assertThat(redis.jobKeys(queue, id)).isEmpty());
        assertThat(page(JobState.COMPLETED, 0, 10)).containsExactly(recent);
        assertThat(redis.queueEvents(queue)).filteredOn(event -> event.event().equals("cleaned"))
                .extracting(QueueEvent::fields).containsExactly(Map.of("state", "completed", "count", "3"));

        List<String> delayed = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            delayed.add(add(JobOptions.defaults().withDelay(Duration.ofMinutes(1 + i))));
        }
        assertThat(queue.maintenance().clean(JobState.DELAYED, Duration.ofMinutes(5), 10).await().atMost(TIMEOUT))
                .as("none is old enough").isEmpty();
        assertThat(queue.maintenance().clean(JobState.DELAYED, Duration.ZERO, 2).await().atMost(TIMEOUT))
                .as("the limit, soonest due first").containsExactly(delayed.get(0), delayed.get(1));
        assertThat(page(JobState.DELAYED, 0, 10)).containsExactlyElementsOf(delayed.subList(2, 5));
        assertThatThrownBy(() -> queue.maintenance().clean(JobState.ACTIVE, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cleanFindsOldDelayedAndPrioritizedJobsBehindYoungerOnesThatComeFirst() {
        String oldDelayed = add(JobOptions.defaults().withDelay(Duration.ofMinutes(30)));
        String oldPrioritized = add(JobOptions.defaults().withPriority(5));
        long addedBefore = redis.redisTimeMillis();
        await().atMost(TIMEOUT).until(() -> redis.redisTimeMillis() > addedBefore + 300);
        List<String> youngDelayed = new ArrayList<>();
        List<String> youngPrioritized = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            youngDelayed.add(add(JobOptions.defaults().withDelay(Duration.ofMinutes(1))));
            youngPrioritized.add(add(JobOptions.defaults().withPriority(1)));
        }

        assertThat(queue.maintenance().clean(JobState.DELAYED, Duration.ofMillis(300), 1).await().atMost(TIMEOUT))
                .containsExactly(oldDelayed);
        assertThat(queue.maintenance().clean(JobState.PRIORITIZED, Duration.ofMillis(300), 1).await().atMost(TIMEOUT))
                .containsExactly(oldPrioritized);
        assertThat(page(JobState.DELAYED, 0, 10)).containsExactlyInAnyOrderElementsOf(youngDelayed);
        assertThat(page(JobState.PRIORITIZED, 0, 10)).containsExactlyInAnyOrderElementsOf(youngPrioritized);
    }

    @Test
    void drainRemovesJobsWaitingToRunAndDelayedOnesOnlyWhenAskedButNeverRunningOnes() {
        Jobs jobs = jobsInEveryState();

        assertThat(queue.maintenance().drain(false).await().atMost(TIMEOUT)).isEqualTo(3);
        assertThat(queue.getJobCounts().await().atMost(TIMEOUT)).containsEntry(JobState.WAITING, 0L)
                .containsEntry(JobState.PRIORITIZED, 0L).containsEntry(JobState.DELAYED, 1L)
                .containsEntry(JobState.ACTIVE, 1L).containsEntry(JobState.COMPLETED, 1L);
        jobs.waiting().forEach(id -> assertThat(redis.jobKeys(queue, id)).isEmpty());
        assertThat(redis.jobKeys(queue, jobs.prioritized())).isEmpty();

        assertThat(queue.maintenance().drain(true).await().atMost(TIMEOUT)).isEqualTo(1);
        assertThat(redis.jobKeys(queue, jobs.delayed())).isEmpty();
        assertThat(redis.job(queue, jobs.active()).state()).isEqualTo(JobState.ACTIVE);
        assertThat(redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().marker()).arg("0")))
                .as("no wake-up left for drained jobs").isNull();
    }

    @Test
    void obliterateRefusesARunningQueueAndRunningJobsUnlessForcedThenLeavesNoKey() {
        Jobs jobs = jobsInEveryState();
        add(JobOptions.defaults().withIdempotencyKey("idem", Duration.ofHours(1))
                .withDeduplication(new Deduplication("dedup", null)));
        QueueMaintenance maintenance = queue.maintenance();

        assertThatThrownBy(() -> maintenance.obliterate(false).await().atMost(TIMEOUT))
                .isInstanceOf(JobStateConflictException.class).hasMessageContaining("paused");
        queue.pause().await().atMost(TIMEOUT);
        assertThatThrownBy(() -> maintenance.obliterate(false).await().atMost(TIMEOUT))
                .as("a job is running").isInstanceOf(JobStateConflictException.class);
        assertThat(redis.job(queue, jobs.completed())).isNotNull();

        long deleted = maintenance.obliterate(true).await().atMost(TIMEOUT);

        assertThat(deleted).isGreaterThan(10);
        await().atMost(TIMEOUT).until(() -> jobs.runner().activeJobIds().isEmpty());
        assertThat(jobs.attempt().isCancelled()).as("the running attempt lost its job").isTrue();
        workers.stopAll();
        await().atMost(TIMEOUT).until(() -> redis.keys(queue).isEmpty());
    }

    @Test
    void obliterateDeletesAPausedQueueOfManyJobsInBatches() {
        BulkAdd.jobs(queue, 1500, JobOptions.defaults());
        queue.pause().await().atMost(TIMEOUT);
        int keys = redis.keys(queue).size();
        assertThat(keys).isGreaterThan(1500);

        assertThat(queue.maintenance().obliterate(false).await().atMost(TIMEOUT)).isEqualTo(keys);
        assertThat(redis.keys(queue)).isEmpty();
        assertThat(queue.isPaused().await().atMost(TIMEOUT)).isFalse();
    }

    /**
     * Jobs in every state: two waiting, one delayed, one prioritized, one active (held by a locally paused
     * worker, so that it takes no other job), one completed, one failed and one aborted.
     */
    private Jobs jobsInEveryState() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker worker = workers.start(processor, TestWorkers.options("w-states").concurrency(3).build());
        String completed = add(JobOptions.defaults());
        String failed = add(JobOptions.defaults());
        String active = add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 3);
        worker.pause(false).await().atMost(TIMEOUT);
        processor.attempt(0).complete("done");
        processor.attempt(1).fail(new IllegalStateException("failed"));
        awaitJob(completed, job -> job.state() == JobState.COMPLETED);
        awaitJob(failed, job -> job.state() == JobState.FAILED);
        List<String> waiting = List.of(add(JobOptions.defaults()), add(JobOptions.defaults()));
        String aborted = add(JobOptions.defaults());
        queue.abort(aborted, "not wanted").await().atMost(TIMEOUT);
        String delayed = add(JobOptions.defaults().withDelay(Duration.ofMinutes(1)));
        String prioritized = add(JobOptions.defaults().withPriority(3));
        return new Jobs(worker, processor.attempt(2), waiting, delayed, prioritized, active, completed, failed, aborted);
    }

    private record Jobs(Worker runner, ProbeProcessor.Attempt attempt, List<String> waiting, String delayed,
            String prioritized, String active, String completed, String failed, String aborted) {
    }

    private ProbeProcessor completing() {
        return ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
    }

    private List<String> page(JobState state, int start, int count) {
        return queue.getJobs(state, start, count).await().atMost(TIMEOUT).stream().map(Job::id).toList();
    }
}
