package dev.fencedqueue.events;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.Takeover;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.UnrecoverableJobException;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.smallrye.mutiny.Uni;
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
        Takeover takeover = heldPair();
        String jobId = startJob("resume me");
        String stream = base + "research/stream/" + jobId;
        SseClient between;

        JobContext first = takeover.awaitAttemptOfA().context();
        delta(first, "Hello");
        String lastOfA = delta(first, ", world");
        try (SseClient live = SseClient.open(stream)) {
            await().atMost(TIMEOUT).until(() -> deltas(live.events()).equals("Hello, world"));

            ProbeProcessor.Attempt second = takeover.takeOver();
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
        Takeover takeover = heldPair();
        String jobId = startJob("start me over");

        delta(takeover.awaitAttemptOfA().context(), "Hello");
        String stream = base + "research/stream/" + jobId;
        try (SseClient live = SseClient.open(stream)) {
            await().atMost(TIMEOUT).until(() -> deltas(live.events()).equals("Hello"));
            ProbeProcessor.Attempt second = takeover.takeOver();
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

    /**
     * A {@code resume} says why its run continues, as Redis recorded it with the transition that sent the job back to
     * wait: {@code takeover} after the stalled check gave a frozen worker's job to another, and after a stopping
     * worker handed it back.
     */
    @Test
    void aResumeAfterAStallOrAHandBackSaysTakeover() {
        Takeover takeover = heldPair();
        ProbeProcessor processorC = ProbeProcessor.held(research.queue());
        String jobId = startJob("take me over");
        delta(takeover.awaitAttemptOfA().context(), "Hello");
        try (SseClient live = SseClient.open(base + "research/stream/" + jobId)) {
            takeover.takeOver().context().resume().await().atMost(TIMEOUT);
            worker(processorC, "worker-C").start();
            manager.stop(takeover.workerB()).await().atMost(TIMEOUT); // hands the job back, as on SIGTERM
            ProbeProcessor.Attempt onC = awaitAttempt(processorC);
            onC.context().resume().await().atMost(TIMEOUT);
            onC.complete("done");

            await().atMost(TIMEOUT).until(() -> live.ended().isDone());
            assertThat(live.events()).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "resume", "resume", "completed");
            assertThat(resumeReasons(live.events())).containsExactly("takeover", "takeover");
        }
    }

    /**
     * After a failed attempt's retry, and after an operator's retry of a failed job, a {@code resume} says
     * {@code retry}.
     */
    @Test
    void aResumeAfterARetrySaysRetry() {
        ProbeProcessor processor = ProbeProcessor.held(research.queue());
        worker(processor, "worker-retry").start();
        String jobId = startJob("retry me");
        ProbeProcessor.Attempt first = awaitAttempt(processor);
        delta(first.context(), "Hello");
        String failedId;
        try (SseClient live = SseClient.open(base + "research/stream/" + jobId)) {
            first.fail(new IllegalStateException("the upstream answered 502"));
            ProbeProcessor.Attempt second = awaitAttempt(processor, 1);
            second.context().resume().await().atMost(TIMEOUT);
            second.fail(new UnrecoverableJobException("the upstream refused the question"));

            await().atMost(TIMEOUT).until(() -> live.ended().isDone());
            assertThat(live.events()).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "resume", "failed");
            assertThat(resumeReasons(live.events())).containsExactly("retry");
            failedId = live.events().get(3).id();
        }

        given().auth().preemptive().basic("admin", "admin")
                .post("/admin/queues/" + research.queue() + "/jobs/" + jobId + "/retry").then().statusCode(200);
        ProbeProcessor.Attempt third = awaitAttempt(processor, 2);
        // A reader that had the failure follows on from it, as a browser's reconnect does.
        try (SseClient later = SseClient.open(base + "research/stream/" + jobId, failedId)) {
            third.context().resume().await().atMost(TIMEOUT);
            third.complete("done");
            await().atMost(TIMEOUT).until(() -> later.ended().isDone());
            assertThat(later.events()).extracting(SseClient.Message::event).containsExactly("resume", "completed");
            assertThat(resumeReasons(later.events())).containsExactly("retry");
        }
        // A reader that comes afterwards sees one answer that went on past the failure, and one ending.
        try (SseClient fresh = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(TIMEOUT).until(() -> fresh.ended().isDone());
            assertThat(fresh.events()).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "resume", "resume", "completed");
        }
        assertThat(validHistory(jobId)).extracting(event -> (String) event.get("event"))
                .containsExactly("started", "progress", "resume", "resume", "completed");
    }

    /**
     * A parent job (a flow, as a deep research job is) runs again once its children ended: its {@code resume} says
     * {@code children}, not a takeover.
     */
    @Test
    void aParentThatGoesOnAfterItsChildrenSaysChildren() {
        String queue = research.queue();
        ProbeProcessor processor = ProbeProcessor.of(queue, context -> {
            if (context.job().parentKey() != null) {
                return Uni.createFrom().item("a finding");
            }
            if (context.resumePoint().isEmpty()) { // as a deep research job: it says what it does, then parks
                return context.progress(0, "planning").chain(() -> context.addChildren(List.of(FlowJob.of(queue,
                        "research", JsonNodeFactory.instance.objectNode().put("query", "a part")).withKey("part"))))
                        .chain(context::moveToWaitingChildren).replaceWith("parked");
            }
            return context.resume().replaceWith("the report");
        });
        worker(processor, "worker-flow").start();
        String jobId = startJob("a parent");
        try (SseClient live = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(TIMEOUT).until(() -> live.ended().isDone());
            assertThat(live.events()).extracting(SseClient.Message::event)
                    .containsExactly("started", "progress", "resume", "completed");
            assertThat(resumeReasons(live.events())).containsExactly("children");
        }
    }

    /** @return the {@code reason} of each {@code resume} event, in order ({@code null} when it has none) */
    private static List<String> resumeReasons(List<SseClient.Message> events) {
        return events.stream().filter(e -> "resume".equals(e.event()))
                .map(e -> JsonPath.from(e.data()).getString("reason")).toList();
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
        return awaitAttempt(processor, 0);
    }

    private static ProbeProcessor.Attempt awaitAttempt(ProbeProcessor processor, int index) {
        await().atMost(TIMEOUT).until(() -> processor.started() > index);
        return processor.attempt(index);
    }
}
