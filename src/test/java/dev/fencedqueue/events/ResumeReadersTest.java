package dev.fencedqueue.events;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * Readers across a run that continues the job (a {@code resume}): a reader following live keeps what it has and sees
 * the answer go on, without a {@code reset}; a reader that connects later, or reconnects with {@code Last-Event-ID},
 * gets the same coherent answer; {@code valid-history} holds the earlier run's events up to the resume point. Worker A
 * is frozen (as if paused by GC) until worker B takes the job over and resumes it.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ResumeReadersTest extends ResearchTestSupport {

    @Test
    void readersKeepTheAnswerAcrossARunThatContinuesIt() {
        ProbeProcessor processorA = ProbeProcessor.held(research.queue());
        ProbeProcessor processorB = ProbeProcessor.held(research.queue());
        Worker workerA = worker(processorA, "worker-A");
        Worker workerB = worker(processorB, "worker-B");
        workerA.start();
        String jobId = startJob("resume me");
        String stream = base + "research/stream/" + jobId;
        SseClient between;

        JobContext first = awaitAttempt(processorA).context();
        delta(first, "Hello");
        String lastOfA = delta(first, ", world");
        try (SseClient live = SseClient.open(stream)) {
            await().atMost(TIMEOUT).until(() -> deltas(live.events()).equals("Hello, world"));

            workerA.freeze(true);
            workerB.start();
            ProbeProcessor.Attempt second = awaitAttempt(processorB);
            assertThat(second.context().resumePoint()).contains(lastOfA);
            // A reader that connects before the new run said what it does gets the earlier run's events with its resume.
            between = SseClient.open(stream);
            SseClient connected = between;
            await().atMost(TIMEOUT).until(() -> connected.status().isDone()); // its replay was read: it ends at the start
            second.context().resume().await().atMost(TIMEOUT);
            delta(second.context(), ", again");
            second.complete("done");

            await().atMost(TIMEOUT).until(() -> live.ended().isDone());
            List<SseClient.Message> events = live.events();
            assertThat(events).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "progress", "resume", "progress", "completed");
            assertThat(deltas(events)).isEqualTo("Hello, world, again");
            SseClient.Message resume = events.get(3);
            assertThat(resume.fencingToken()).isEqualTo(second.fencingToken());
            assertThat(resume.data()).contains("\"resumeFrom\":\"" + lastOfA + "\"").contains("\"attempt\":2");
        }

        try (SseClient reader = between) {
            await().atMost(TIMEOUT).until(() -> reader.ended().isDone());
            assertThat(reader.events()).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "progress", "resume", "progress", "completed");
            assertThat(deltas(reader.events())).isEqualTo("Hello, world, again");
        }
        try (SseClient later = SseClient.open(stream)) {
            await().atMost(TIMEOUT).until(() -> later.ended().isDone());
            assertThat(later.events()).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "progress", "resume", "progress", "completed");
            assertThat(later.events()).extracting(SseClient.Message::id)
                    .containsExactlyElementsOf(validHistory(jobId).stream().map(e -> (String) e.get("id")).toList());
        }
        try (SseClient reconnected = SseClient.open(stream, lastOfA)) {
            await().atMost(TIMEOUT).until(() -> reconnected.ended().isDone());
            assertThat(reconnected.events()).extracting(SseClient.Message::event)
                    .containsExactly("resume", "progress", "completed");
        }
        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(valid).extracting(e -> e.get("workerId"))
                .containsExactly("worker-A", "worker-A", "worker-A", "worker-B", "worker-B", "worker-B");
    }

    @Test
    void aRunThatStartsOverIsStillAnnouncedByAReset() {
        ProbeProcessor processorA = ProbeProcessor.held(research.queue());
        ProbeProcessor processorB = ProbeProcessor.held(research.queue());
        Worker workerA = worker(processorA, "worker-A");
        Worker workerB = worker(processorB, "worker-B");
        workerA.start();
        String jobId = startJob("start me over");

        delta(awaitAttempt(processorA).context(), "Hello");
        String stream = base + "research/stream/" + jobId;
        try (SseClient live = SseClient.open(stream)) {
            await().atMost(TIMEOUT).until(() -> deltas(live.events()).equals("Hello"));
            workerA.freeze(true);
            workerB.start();
            ProbeProcessor.Attempt second = awaitAttempt(processorB);
            try (SseClient between = SseClient.open(stream)) {
                await().atMost(TIMEOUT).until(() -> between.status().isDone()); // its replay ends at the new start
                delta(second.context(), "Bonjour");
                second.complete("done");

                await().atMost(TIMEOUT).until(() -> live.ended().isDone() && between.ended().isDone());
                assertThat(live.events()).extracting(SseClient.Message::event)
                        .containsExactly("started", "progress", "reset", "started", "progress", "completed");
                assertThat(between.events()).as("a reader that has shown nothing needs no reset")
                        .extracting(SseClient.Message::event).containsExactly("started", "progress", "completed");
                assertThat(deltas(between.events())).isEqualTo("Bonjour");
            }
        }
        assertThat(validHistory(jobId)).extracting(e -> e.get("workerId")).containsOnly("worker-B");
    }


    private static String deltas(List<SseClient.Message> events) {
        StringBuilder text = new StringBuilder();
        events.stream().filter(e -> "progress".equals(e.event())).forEach(e -> {
            String data = e.data();
            int at = data.indexOf("\"delta\":\"");
            if (at >= 0) {
                text.append(data, at + 9, data.indexOf('"', at + 9));
            }
        });
        return text.toString();
    }

    private static ProbeProcessor.Attempt awaitAttempt(ProbeProcessor processor) {
        await().atMost(TIMEOUT).until(() -> processor.started() > 0);
        return processor.attempt(0);
    }
}
