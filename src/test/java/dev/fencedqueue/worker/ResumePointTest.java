package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.StaleFencingTokenException;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.Takeover;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Resume points and checkpoints: a run that takes a job over learns where the committed prefix of the job's events
 * ends and reads the last checkpoint an earlier run committed; a checkpoint is fenced like every write, and one
 * written with an event lands with it or not at all. Worker A is frozen (as if paused by GC) until the stalled-job
 * check hands its job to worker B.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ResumePointTest extends QueueTestSupport {

    @Inject
    ObjectMapper json;

    @Inject
    LuaScripts scripts;

    @Test
    void firstRunHasNeitherResumePointNorCheckpoint() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        startWorker(processor, "worker-A");
        add(JobOptions.defaults());

        JobContext context = awaitAttempt(processor, 0).context();

        assertThat(context.resumePoint()).isEmpty();
        assertThat(context.committedCheckpoint()).isEmpty();
    }

    @Test
    void takeoverReadsTheResumePointAndTheLastCheckpointOfTheEarlierRun() {
        Takeover takeover = Takeover.of(queue.name(), this::createWorker);
        String jobId = add(JobOptions.defaults());
        JobContext first = takeover.awaitAttemptOfA().context();
        first.checkpoint(state(1, "resp_1")).await().atMost(TIMEOUT);
        first.publish("delta", json.createObjectNode().put("text", "Hello"), state(2, "resp_1")).await().atMost(TIMEOUT);
        String lastOfFirstRun = first.publish("delta", json.createObjectNode().put("text", ", world"))
                .await().atMost(TIMEOUT);

        JobContext second = takeover.takeOver().context();

        assertThat(second.resumePoint()).as("the last event of the first run").contains(lastOfFirstRun);
        assertThat(second.committedCheckpoint()).contains(state(2, "resp_1"));
        List<JobEvent> events = redis.events(queue, jobId);
        assertThat(events).extracting(JobEvent::type).containsExactly("started", "delta", "delta", "started");
        assertThat(events.get(3).fencingToken()).isEqualTo(second.fencingToken());
        assertThat(hashField(jobId, "resumePoint")).isEqualTo(lastOfFirstRun);
        assertThat(first.committedCheckpoint()).as("what a run read at its activation stays").isEmpty();
    }

    @Test
    void rejectsCheckpointsFromStaleFencingToken() {
        Takeover takeover = Takeover.of(queue.name(), this::createWorker);
        String jobId = add(JobOptions.defaults());
        JobContext zombie = takeover.awaitAttemptOfA().context();
        zombie.checkpoint(state(1, "resp_1")).await().atMost(TIMEOUT);
        JobContext current = takeover.takeOver().context();
        current.checkpoint(state(5, "resp_2")).await().atMost(TIMEOUT);
        int eventsBefore = redis.events(queue, jobId).size();

        assertThatThrownBy(() -> zombie.checkpoint(state(9, "z")).await().atMost(TIMEOUT))
                .isInstanceOf(StaleFencingTokenException.class);
        // An event and a checkpoint written together are refused together (the script, without the worker's
        // cancellation in between).
        assertThat(appendDirectly(jobId, zombie, "{\"text\":\"zombie\"}", state(10, "z").toString())).isEqualTo(-7);

        assertThat(redis.events(queue, jobId)).hasSize(eventsBefore);
        assertThat(hashField(jobId, "checkpoint")).isEqualTo(state(5, "resp_2").toString());
        assertThat(takeover.workerA().stats().rejectedWrites()).isEqualTo(1);
        assertThat(appendDirectly(jobId, current, "{\"text\":\"current\"}", state(6, "resp_2").toString()))
                .as("the current run's event and checkpoint land together").isNotEqualTo(-7);
        assertThat(redis.events(queue, jobId)).hasSize(eventsBefore + 1);
        assertThat(hashField(jobId, "checkpoint")).isEqualTo(state(6, "resp_2").toString());
    }

    @Test
    void aJobWithoutEventStreamKeepsItsCheckpointAcrossAttempts() throws Exception {
        ProbeProcessor processor = ProbeProcessor.of(queue.name(), context -> {
            if (context.job().attemptsStarted() == 1) {
                return context.checkpoint(state(3, "resp_1"))
                        .chain(() -> io.smallrye.mutiny.Uni.createFrom().failure(new IllegalStateException("cut")));
            }
            return io.smallrye.mutiny.Uni.createFrom().item(context.committedCheckpoint().map(Object::toString)
                    .orElse("none") + " / " + context.resumePoint().orElse("no resume point"));
        });
        startWorker(processor, "worker-A");
        String jobId = add(JobOptions.defaults().withEventStream(false).withAttempts(2));

        Job job = awaitJob(jobId, j -> j.state() == JobState.COMPLETED);

        assertThat(job.returnValue()).isEqualTo(json.writeValueAsString(state(3, "resp_1") + " / no resume point"));
    }

    @Test
    void refusesACheckpointThatIsNotSmall() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        startWorker(processor, "worker-A");
        add(JobOptions.defaults());
        JobContext context = awaitAttempt(processor, 0).context();

        ObjectNode large = json.createObjectNode().put("text", "x".repeat(JobContext.MAX_CHECKPOINT_BYTES));
        assertThatThrownBy(() -> context.checkpoint(large)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("`checkpoint`");
        assertThatThrownBy(() -> context.checkpoint(null)).isInstanceOf(IllegalArgumentException.class);
    }

    private ObjectNode state(int step, String responseId) {
        return json.createObjectNode().put("step", step).put("responseId", responseId);
    }

    /** @return the appendEvent script's reply to a delta with a checkpoint, sent as {@code context}'s attempt */
    private long appendDirectly(String jobId, JobContext context, String data, String checkpoint) {
        Response reply = scripts.run(LuaScript.APPEND_EVENT,
                List.of(queue.keys().job(jobId), queue.keys().events(jobId), queue.keys().events()),
                List.of(Long.toString(context.fencingToken()), "delta", data, "100", "0", "", jobId, "100",
                        context.attemptId(), checkpoint)).await().atMost(TIMEOUT);
        return reply.type() == ResponseType.NUMBER ? reply.toLong() : 0;
    }

    private String hashField(String jobId, String field) {
        return redis.send(Request.cmd(Command.HGET).arg(queue.keys().job(jobId)).arg(field)).toString();
    }
}
