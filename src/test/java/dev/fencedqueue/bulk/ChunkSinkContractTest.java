package dev.fencedqueue.bulk;

import static dev.fencedqueue.testing.TestWorkers.options;
import static dev.fencedqueue.testing.Timeouts.FAN_OUT_END;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static dev.fencedqueue.worker.WorkerTestAccess.thaw;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.in;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.testing.FanOutRows;
import dev.fencedqueue.testing.FanOuts;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every chunk sink promises, run against each one (a subclass per sink, with its profile): an operator's abort
 * stops a fan-out at a chunk boundary with its cursor kept and a resume finishes it exactly once; a throttle changed
 * while it runs applies from the next chunk; a zombie's chunk is refused by the sink's fence and written not at all;
 * a second fan-out of the same channel writes nothing until the first stops running (single-flight). The scenarios
 * hold chosen reads ({@link ReadGate}) instead of racing a running fan-out.
 */
abstract class ChunkSinkContractTest {

    protected static final String JOBS = "/admin/queues/notifications/jobs/";

    @Inject
    protected Queues queues;

    @Inject
    protected BulkConfig config;

    @Inject
    protected WorkerManager manager;

    @Inject
    protected MeterRegistry registry;

    @Inject
    protected QueueInspector redis;

    protected TestWorkers workers;
    protected JobQueue queue;
    private final ReadGate gate = new ReadGate();

    /** @return the sink's channels and what the fan-outs wrote into it */
    protected abstract FanOutRows rows();

    /** @return the sink's fan-out processor, its reads passing through {@code gate} */
    protected abstract JobProcessor fanOut(ReadGate gate);

    /** @return the job's committed cursor, {@link Cursor#START} before its first chunk */
    protected abstract Cursor cursor(String channel, String jobId);

    /** @return the fencing token that last claimed the job's cursor */
    protected abstract long cursorToken(String channel, String jobId);

    @BeforeEach
    void workers() {
        workers = new TestWorkers(manager);
        queue = queues.queue(config.queue());
    }

    /** Stops the test's workers and removes every key of the queue, so that no job of a test outlives it. */
    @AfterEach
    void stopWorkersAndEmptyTheQueue() {
        gate.releaseAll();
        workers.stopAll();
        queue.pause().await().atMost(TIMEOUT);
        queue.maintenance().obliterate(true).await().atMost(TIMEOUT);
    }

    @Test
    void abortStopsAtAChunkBoundaryKeepingTheCursorAndResumeFinishesExactlyOnce() {
        String channel = rows().channelWith(2000);
        ReadGate.Hold thirdChunk = gate.holdAfterRead((job, cursor) -> "s-000199".equals(cursor));
        startWorker("w-abort", 1);
        String jobId = FanOuts.start(channel, 100, null, Map.of());
        await("the job read its third chunk").atMost(TIMEOUT).until(thirdChunk::isReached);
        long firstEpoch = redis.job(queue, jobId).fencingToken();

        FanOuts.admin().post(JOBS + jobId + "/abort").then().statusCode(202).body("state", equalTo("aborting"));
        thirdChunk.release();
        await("the job stops at a chunk boundary").atMost(TIMEOUT)
                .until(() -> redis.job(queue, jobId).state() == JobState.ABORTED);
        Cursor kept = cursor(channel, jobId);
        assertThat(kept.itemsDone()).as("items done when aborted").isBetween(200L, 300L)
                .isEqualTo(kept.chunksDone() * 100);
        assertThat(rows().notifications(channel, jobId)).as("entries = committed items: no half chunk")
                .isEqualTo(kept.itemsDone());
        assertThat(rows().outbox(channel, jobId)).isEqualTo(kept.itemsDone());
        assertThat(kept.position()).isEqualTo(String.format("s-%06d", kept.itemsDone() - 1));
        assertThat(redis.job(queue, jobId).failedReason()).contains("chunk boundary");

        FanOuts.admin().post(JOBS + jobId + "/resume").then().statusCode(200)
                .body("state", in(List.of("waiting", "active")));
        await("the resumed job finishes").atMost(FAN_OUT_END)
                .until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);

        long resumed = redis.job(queue, jobId).fencingToken();
        assertThat(resumed).as("the resume ran as a new epoch").isGreaterThan(firstEpoch);
        assertThat(cursorToken(channel, jobId)).isEqualTo(resumed);
        assertThat(cursor(channel, jobId)).isEqualTo(new Cursor("s-001999", 20, 2000));
        assertThat(rows().notifications(channel, jobId)).isEqualTo(2000);
        assertThat(rows().notExactlyOnce(channel, jobId)).isZero();
    }

    @Test
    void throttleChangedWhileTheJobRunsAppliesFromItsNextChunk() {
        String channel = rows().channelWith(1000);
        startWorker("w-throttle", 1);
        // At 10 items per second the 1,000 items would take 100 s.
        String jobId = FanOuts.start(channel, 50, null, Map.of("maxItemsPerSecond", 10));
        await().atMost(TIMEOUT).until(() -> cursor(channel, jobId).chunksDone() >= 1);

        FanOuts.admin().contentType(ContentType.JSON).body("{\"pauseBetweenChunksMs\": 0, \"maxItemsPerSecond\": null}")
                .put(JOBS + jobId + "/throttle").then().statusCode(200).body("pauseBetweenChunksMs", equalTo(0));
        given().get("/notifications/jobs/" + jobId).then().body("throttle.pauseBetweenChunksMs", equalTo(0));
        FanOuts.admin().get(JOBS + jobId).then().statusCode(200).body("throttle.pauseBetweenChunksMs", equalTo(0))
                .body("singleFlightKey", equalTo(channel)).body("jobId", equalTo(jobId));

        await("the rest runs unthrottled").atMost(FAN_OUT_END)
                .until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);
        assertThat(rows().notExactlyOnce(channel, jobId)).isZero();
    }

    /**
     * The zombie commits while the cursor is still where its chunk started, after the newer epoch claimed the
     * cursor: only the fencing token can refuse it, and the newer epoch must then finish as epoch 2.
     */
    @Test
    void zombiesChunkIsRefusedByTheSinksFenceAndWritesNothing() {
        String channel = rows().channelWith(1000);
        double rejectedBefore = rejected();
        ReadGate.Hold zombieRead = gate.holdAfterRead((job, cursor) -> job.fencingToken() == gate.firstToken()
                && "s-000199".equals(cursor));
        ReadGate.Hold successorRead = gate.holdBeforeRead((job, cursor) -> job.fencingToken() > gate.firstToken());
        Worker zombie = startWorker("w-zombie", 1);
        String jobId = FanOuts.start(channel, 100, null, Map.of());
        await("epoch 1 read its third chunk and waits").atMost(TIMEOUT).until(zombieRead::isReached);

        freeze(zombie); // no more lock renewals: its lock expires and the job is taken over
        startWorker("w-successor", 1);
        await("epoch 2 claimed the cursor and waits before its first chunk").atMost(TIMEOUT)
                .until(successorRead::isReached);
        assertThat(successorRead.token()).as("a newer epoch").isGreaterThan(zombieRead.token());
        assertThat(cursorToken(channel, jobId)).isEqualTo(successorRead.token());
        assertThat(cursor(channel, jobId).position()).as("where the zombie's chunk starts").isEqualTo("s-000199");

        zombieRead.release(); // epoch 1 goes on with the chunk it read
        await("the zombie's chunk is refused").atMost(TIMEOUT).until(() -> rejected() > rejectedBefore);
        assertThat(rows().notifications(channel, jobId)).as("nothing of the zombie's chunk").isEqualTo(200);
        assertThat(rows().outbox(channel, jobId)).isEqualTo(200);
        successorRead.release();
        await("epoch 2 finishes the job").atMost(FAN_OUT_END)
                .until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);
        thaw(zombie);
        await().atMost(TIMEOUT).until(() -> zombie.activeJobIds().isEmpty());

        assertThat(redis.job(queue, jobId).fencingToken()).as("the current epoch was never refused")
                .isEqualTo(successorRead.token());
        assertThat(rows().notifications(channel, jobId)).isEqualTo(1000);
        assertThat(rows().notExactlyOnce(channel, jobId)).isZero();
        assertThat(cursor(channel, jobId).position()).isEqualTo("s-000999");
    }

    @Test
    void aSecondFanOutOfTheSameChannelWritesNothingUntilTheFirstStopsRunning() {
        String channel = rows().channelWith(600);
        ReadGate.Hold firstRead = gate.holdAfterRead((job, cursor) -> job.jobId().equals(gate.firstJobId())
                && cursor.isEmpty());
        startWorker("w-single-flight", 2);
        String first = FanOuts.start(channel, 100, null, Map.of());
        await("the first fan-out runs").atMost(TIMEOUT).until(firstRead::isReached);
        String second = FanOuts.start(channel, 100, null, Map.of());

        // Twice: the second tried to take the key again after its wait, and still waits.
        await("the second waits for the first").atMost(TIMEOUT).until(() -> redis.events(queue, second).stream()
                .filter(event -> event.data().contains("waiting for job " + first)).count() >= 2);
        assertThat(rows().notifications(channel, second)).as("written while the first runs").isZero();
        firstRead.release();
        // At every look: what the second wrote (read first) was written once the first had stopped (read after).
        await().atMost(FAN_OUT_END).until(() -> {
            long secondWrote = rows().notifications(channel, second);
            JobState firstState = redis.job(queue, first).state();
            assertThat(secondWrote == 0 || firstState == JobState.COMPLETED)
                    .as("the second wrote %d while the first was %s", secondWrote, firstState).isTrue();
            return redis.job(queue, second).state() == JobState.COMPLETED;
        });
        assertThat(rows().notExactlyOnce(channel, first)).isZero();
        assertThat(rows().notExactlyOnce(channel, second)).isZero();
    }

    /** @return a started worker of the sink's fan-out, with the test options and {@code concurrency} */
    protected Worker startWorker(String workerId, int concurrency) {
        return workers.start(fanOut(gate), options(workerId).concurrency(concurrency).build());
    }

    private double rejected() {
        return FanOuts.rejectedChunks(registry, config.queue());
    }
}
