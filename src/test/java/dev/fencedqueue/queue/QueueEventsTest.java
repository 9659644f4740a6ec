package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static dev.fencedqueue.worker.WorkerTestAccess.thaw;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
import io.smallrye.mutiny.helpers.test.AssertSubscriber;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A queue's event stream, read from Java as a {@code Multi} ({@link JobQueue#events}): every state change
 * in order, bounded in length ({@code fq.events.queue-stream-max-length}: 1,000 entries in the tests), on a
 * connection that cancelling closes.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class QueueEventsTest extends QueueTestSupport {

    private final List<AssertSubscriber<QueueEvent>> subscribers = new ArrayList<>();

    @Inject
    EventsConfig config;

    @AfterEach
    void stop() {
        subscribers.forEach(AssertSubscriber::cancel);
    }

    @Test
    void aJobsLifecycleYieldsWaitingActiveProgressCompletedInOrder() {
        AssertSubscriber<QueueEvent> events = follow("0");
        ProbeProcessor processor = ProbeProcessor.of(queue.name(),
                context -> context.progress(50, "half way").replaceWith("result"));
        workers.start(processor, TestWorkers.options("w-events").build());

        String jobId = add(JobOptions.defaults());

        List<QueueEvent> lifecycle = awaitEvents(events, jobId, "completed");
        assertThat(lifecycle).extracting(QueueEvent::event).containsExactly("waiting", "active", "progress", "completed");
        assertThat(lifecycle.get(1).fields()).containsEntry("prev", "waiting").containsEntry("workerId", "w-events");
        assertThat(lifecycle.get(2).fields()).as("the progress of the job's one run")
                .containsEntry("fencingToken", Long.toString(processor.attempt(0).fencingToken()));
        assertThat(lifecycle.get(2).fields().get("data")).contains("\"percent\":50").contains("half way");
        assertThat(lifecycle.get(3).fields()).containsEntry("returnvalue", "\"result\"");
        assertThat(lifecycle).extracting(QueueEvent::id).isSorted();
    }

    @Test
    void aRetriedJobYieldsFailedDelayedThenWaitingAgainAndADelayedJobYieldsDelayed() {
        AssertSubscriber<QueueEvent> events = follow("0");
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> context.job().attemptsMade() == 0
                && "flaky".equals(context.job().name())
                        ? Uni.createFrom().failure(new IllegalStateException("first attempt fails"))
                        : Uni.createFrom().item("completes"));
        workers.start(processor, TestWorkers.options("w-retry").build());

        String retried = queue.add("flaky", Map.of(), JobOptions.defaults().withAttempts(2)
                .withBackoff(Backoff.fixed(Duration.ofMillis(100)))).await().atMost(TIMEOUT).jobId();
        String delayed = add(JobOptions.defaults().withDelay(Duration.ofMillis(100)));
        String retriedAtOnce = queue.add("flaky", Map.of(), JobOptions.defaults().withAttempts(2)).await()
                .atMost(TIMEOUT).jobId();

        List<QueueEvent> retries = awaitEvents(events, retried, "completed");
        assertThat(retries).extracting(QueueEvent::event)
                .containsExactly("waiting", "active", "failed", "delayed", "waiting", "active", "completed");
        assertThat(retries.get(2).fields()).containsEntry("failedReason", "first attempt fails")
                .containsEntry("attemptsMade", "1").containsEntry("retry", "delayed");
        assertThat(retries.get(3).fields()).containsEntry("delay", "100");
        assertThat(retries.get(4).fields()).containsEntry("prev", "delayed");
        assertThat(awaitEvents(events, delayed, "completed")).extracting(QueueEvent::event)
                .containsExactly("delayed", "waiting", "active", "completed");
        List<QueueEvent> atOnce = awaitEvents(events, retriedAtOnce, "completed");
        assertThat(atOnce).extracting(QueueEvent::event)
                .containsExactly("waiting", "active", "failed", "waiting", "active", "completed");
        assertThat(atOnce.get(2).fields()).containsEntry("retry", "waiting");
        assertThat(atOnce.get(3).fields()).containsEntry("prev", "failed");
    }

    @Test
    void failedStalledRemovedPausedAndResumedAreEvents() {
        AssertSubscriber<QueueEvent> events = follow("0");
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        Worker frozen = workers.start(processor, TestWorkers.options("w-stall").build());
        String stalled = add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        freeze(frozen);
        awaitEvents(events, stalled, "stalled");
        thaw(frozen);
        await().atMost(TIMEOUT).until(() -> processor.started() == 2);
        processor.attempt(1).fail(new IllegalStateException("gave up"));
        awaitEvents(events, stalled, "failed");

        String removed = add(JobOptions.defaults().withDelay(Duration.ofMinutes(1)));
        queue.maintenance().remove(removed).await().atMost(TIMEOUT);
        queue.pause().await().atMost(TIMEOUT);
        queue.resume().await().atMost(TIMEOUT);

        assertThat(awaitEvents(events, stalled, "failed")).extracting(QueueEvent::event)
                .containsExactly("waiting", "active", "stalled", "active", "failed");
        assertThat(awaitEvents(events, removed, "removed")).extracting(QueueEvent::event)
                .containsExactly("delayed", "removed");
        assertThat(awaitEvents(events, "", "resumed")).extracting(QueueEvent::event).containsExactly("paused", "resumed");
    }

    @Test
    void followingFromNowSkipsEarlierEvents() {
        String before = add(JobOptions.defaults());
        AssertSubscriber<QueueEvent> events = follow("$");

        // The follower reads the stream's end when it starts: keep adding until it sees one.
        List<String> added = new ArrayList<>();
        await().atMost(TIMEOUT).until(() -> {
            added.add(add(JobOptions.defaults()));
            return !events.getItems().isEmpty();
        });

        assertThat(events.getItems()).extracting(QueueEvent::jobId).doesNotContain(before).isSubsetOf(added);
        assertThat(events.getItems()).extracting(QueueEvent::event).containsOnly("waiting");
    }

    @Test
    void streamIsTrimmedToItsBound() {
        List<String> jobIds = BulkAdd.jobs(queue, 3 * config.queueStreamMaxLength(),
                JobOptions.defaults());

        // Approximate trimming drops whole stream nodes (100 entries each by default).
        assertThat(redis.queueEventsLength(queue)).isBetween((long) config.queueStreamMaxLength(),
                config.queueStreamMaxLength() + 100L);
        AssertSubscriber<QueueEvent> events = follow("0");
        await().atMost(TIMEOUT).until(() -> events.getItems().size() == redis.queueEventsLength(queue));
        assertThat(events.getItems().get(0).jobId()).as("the oldest events were trimmed").isNotEqualTo(jobIds.get(0));
        assertThat(events.getItems().get(events.getItems().size() - 1).jobId()).isEqualTo(jobIds.get(jobIds.size() - 1));
    }

    @Test
    void cancellingTheMultiClosesItsConnection() {
        long readersBefore = redis.clientsRunning("xread");
        AssertSubscriber<QueueEvent> events = follow("0");
        await().atMost(TIMEOUT).until(() -> redis.clientsRunning("xread") == readersBefore + 1);
        add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> events.getItems().size() == 1);

        events.cancel();

        await().atMost(TIMEOUT).until(() -> redis.clientsRunning("xread") == readersBefore);
        // A second follower sees the next job's event: the cancelled one, had it still read, would have by then.
        AssertSubscriber<QueueEvent> witness = follow("0");
        add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> witness.getItems().size() == 2);
        assertThat(events.getItems()).hasSize(1);
    }

    private AssertSubscriber<QueueEvent> follow(String afterId) {
        AssertSubscriber<QueueEvent> subscriber = queue.events(afterId).subscribe()
                .withSubscriber(AssertSubscriber.create(Long.MAX_VALUE));
        subscribers.add(subscriber);
        return subscriber;
    }

    /** @return the events of one job ({@code ""} for queue-wide events), in order, once {@code last} arrived */
    private static List<QueueEvent> awaitEvents(AssertSubscriber<QueueEvent> subscriber, String jobId, String last) {
        return await().atMost(TIMEOUT).until(
                () -> subscriber.getItems().stream().filter(event -> event.jobId().equals(jobId)).toList(),
                events -> events.stream().anyMatch(event -> event.event().equals(last)));
    }


}
