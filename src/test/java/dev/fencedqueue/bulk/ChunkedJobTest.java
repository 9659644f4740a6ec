package dev.fencedqueue.bulk;

import static dev.fencedqueue.testing.TestWorkers.options;
import static dev.fencedqueue.testing.Timeouts.FAN_OUT_END;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.in;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.fencedqueue.config.BulkConfig;
import dev.fencedqueue.notifications.NotificationFanOut;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.testing.FanOuts;
import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chunked-job runtime on a real PostgreSQL and Redis: an operator's abort stops a fan-out at a chunk
 * boundary with its cursor kept and a resume finishes it exactly once; a throttle changed while it runs applies
 * from the next chunk; a zombie's chunk is refused by the fence in the database and rolled back whole; a second
 * fan-out of the same channel waits for the first (single-flight).
 */
@QuarkusTest
@TestProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ChunkedJobTest {

    private static final String JOBS = "/admin/queues/notifications/jobs/";

    @Inject
    NotificationFanOut fanOut;

    @Inject
    BulkControl control;

    @Inject
    PostgresCursors cursors;

    @Inject
    Queues queues;

    @Inject
    BulkMetrics metrics;

    @Inject
    BulkConfig config;

    @Inject
    WorkerManager manager;

    @Inject
    MeterRegistry registry;

    @PostgresTestResource.InjectPostgres
    NotificationRows rows;

    @Inject
    QueueInspector redis;

    private TestWorkers workers;
    private JobQueue queue;

    @BeforeEach
    void workers() {
        workers = new TestWorkers(manager);
        queue = queues.queue(config.queue());
    }

    /** Stops the test's workers and removes every key of the queue, so that no job of a test outlives it. */
    @AfterEach
    void stopWorkersAndEmptyTheQueue() {
        workers.stopAll();
        queue.pause().await().atMost(TIMEOUT);
        queue.maintenance().obliterate(true).await().atMost(TIMEOUT);
    }

    @Test
    void abortStopsAtAChunkBoundaryKeepingTheCursorAndResumeFinishesExactlyOnce() throws SQLException {
        String channel = rows.channelWith(2000);
        startWorker(fanOut, "w-abort");
        String jobId = FanOuts.start(channel, 100, 150, Map.of());
        await("three chunks committed").atMost(TIMEOUT).until(() -> chunksDone(jobId) >= 3);
        long firstEpoch = redis.job(queue, jobId).fencingToken();

        FanOuts.admin().post(JOBS + jobId + "/abort").then().statusCode(202).body("state", equalTo("aborting"));
        await("the job stops at a chunk boundary").atMost(TIMEOUT)
                .until(() -> redis.job(queue, jobId).state() == JobState.ABORTED);
        Cursor kept = cursors.read(jobId).orElseThrow();
        assertThat(kept.itemsDone()).as("items done when aborted").isLessThan(2000).isEqualTo(kept.chunksDone() * 100);
        assertThat(rows.rows("notification", jobId)).as("rows = committed items: no half chunk").isEqualTo(kept.itemsDone());
        assertThat(rows.rows("push_outbox", jobId)).isEqualTo(kept.itemsDone());
        assertThat(kept.position()).isEqualTo(String.format("s-%06d", kept.itemsDone() - 1));
        assertThat(redis.job(queue, jobId).failedReason()).contains("chunk boundary");

        FanOuts.admin().contentType(ContentType.JSON).body(Map.of("pauseBetweenChunksMs", 0)).put(JOBS + jobId + "/throttle")
                .then().statusCode(200);
        FanOuts.admin().post(JOBS + jobId + "/resume").then().statusCode(200)
                .body("state", in(List.of("waiting", "active")));
        await("the resumed job finishes").atMost(FAN_OUT_END).until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);

        Job job = redis.job(queue, jobId);
        assertThat(job.fencingToken()).as("the resume ran as a new epoch").isGreaterThan(firstEpoch);
        Cursor end = cursors.read(jobId).orElseThrow();
        assertThat(end.position()).isEqualTo("s-001999");
        assertThat(end.itemsDone()).isEqualTo(2000);
        assertThat(rows.notExactlyOnce("notification", channel, jobId)).isZero();
        assertThat(rows.notExactlyOnce("push_outbox", channel, jobId)).isZero();
        assertThat(rows.rows("notification", jobId)).isEqualTo(2000);
    }

    @Test
    void throttleChangedWhileTheJobRunsAppliesFromItsNextChunk() {
        String channel = rows.channelWith(1000);
        startWorker(fanOut, "w-throttle");
        // At 10 items per second the 1,000 items would take 100 s.
        String jobId = FanOuts.start(channel, 50, null, Map.of("maxItemsPerSecond", 10));
        await().atMost(TIMEOUT).until(() -> chunksDone(jobId) >= 1);

        FanOuts.admin().contentType(ContentType.JSON).body("{\"pauseBetweenChunksMs\": 0, \"maxItemsPerSecond\": null}")
                .put(JOBS + jobId + "/throttle").then().statusCode(200).body("pauseBetweenChunksMs", equalTo(0));
        given().get("/notifications/jobs/" + jobId).then().body("throttle.pauseBetweenChunksMs", equalTo(0));
        FanOuts.admin().get(JOBS + jobId).then().statusCode(200).body("throttle.pauseBetweenChunksMs", equalTo(0))
                .body("singleFlightKey", equalTo(channel)).body("jobId", equalTo(jobId));

        await("the rest runs unthrottled").atMost(FAN_OUT_END)
                .until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);
        assertThat(rows.notExactlyOnce("notification", channel, jobId)).isZero();
    }

    /**
     * The zombie commits while the cursor is still where its chunk started, after the newer epoch claimed the
     * cursor row: only the fencing token can refuse it, and the newer epoch must then finish as epoch 2.
     */
    @Test
    void zombiesChunkIsRefusedByTheDatabaseFenceAndRolledBackWhole() throws SQLException {
        String channel = rows.channelWith(1000);
        double rejectedBefore = rejected();
        GatedFanOut gated = new GatedFanOut(fanOut);
        Worker zombie = startWorker(gated, "w-zombie");
        String jobId = FanOuts.start(channel, 100, null, Map.of());
        await("epoch 1 reads its third chunk and waits").atMost(TIMEOUT).until(() -> gated.zombieWaits.getCount() == 0);

        zombie.freeze(true); // no more lock renewals: its lock expires and the job is taken over
        startWorker(gated, "w-successor");
        await("epoch 2 claimed the cursor and waits before its first chunk").atMost(TIMEOUT)
                .until(() -> gated.successorWaits.getCount() == 0);
        assertThat(gated.successorToken()).as("a newer epoch").isGreaterThan(gated.zombieToken());
        assertThat(rows.cursorToken(jobId)).isEqualTo(gated.successorToken());
        assertThat(rows.cursor(jobId)).as("the cursor the zombie's chunk starts from").isEqualTo("s-000199");

        gated.releaseZombie.countDown(); // epoch 1 goes on with the chunk it read
        await("the zombie's chunk is refused").atMost(TIMEOUT).until(() -> rejected() > rejectedBefore);
        assertThat(rows.rows("notification", jobId)).as("nothing of the zombie's chunk").isEqualTo(200);
        gated.releaseSuccessor.countDown();
        await("epoch 2 finishes the job").atMost(FAN_OUT_END)
                .until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);
        zombie.freeze(false);
        await().atMost(TIMEOUT).until(() -> zombie.activeJobIds().isEmpty());

        assertThat(redis.job(queue, jobId).fencingToken()).as("the current epoch was never refused")
                .isEqualTo(gated.successorToken());
        assertThat(rows.rows("notification", jobId)).isEqualTo(1000);
        assertThat(rows.notExactlyOnce("notification", channel, jobId)).isZero();
        assertThat(rows.notExactlyOnce("push_outbox", channel, jobId)).isZero();
        assertThat(cursors.read(jobId).orElseThrow().position()).isEqualTo("s-000999");
    }

    @Test
    void underATokenHandedOutTwiceOnlyTheAttemptThatClaimedTheCursorAdvancesIt() throws Exception {
        // Redis lost the activation of attempt B and handed its token to attempt C, which claimed the cursor after B.
        String jobId = "attempts-" + System.nanoTime();
        ConnectionGuard guard = new ConnectionGuard();
        assertThat(cursors.claim(jobId, 5, "attempt-B", guard)).hasValue(Cursor.START);
        assertThat(cursors.claim(jobId, 5, "attempt-C", guard)).as("the later activation takes the cursor")
                .hasValue(Cursor.START);
        PostgresChunkedJob<String> oneLetter = new PostgresChunkedJob<>() {
            @Override
            public String queue() {
                return "attempts";
            }

            @Override
            public ChunkPlan plan(JobContext job) {
                return null;
            }

            @Override
            public String cursorAfter(String item) {
                return item;
            }

            @Override
            public long total(Connection connection, JobContext job) {
                return 1;
            }

            @Override
            public List<String> read(Connection transaction, JobContext job, String cursor, int size) {
                return cursor.isEmpty() ? List.of("a") : List.of();
            }

            @Override
            public void write(Connection transaction, JobContext job, List<String> chunk) {
            }
        };

        assertThat(cursors.nextChunk(jobId, 5, Cursor.START, 10, oneLetter, attempt(jobId, 5, "attempt-B"), () -> true,
                guard).status()).as("the forgotten attempt, under the same token").isEqualTo(ChunkOutcome.Status.FENCED);
        assertThat(cursors.nextChunk(jobId, 5, Cursor.START, 10, oneLetter, attempt(jobId, 5, "attempt-C"), () -> true,
                guard).status()).isEqualTo(ChunkOutcome.Status.COMMITTED);
    }

    /** @return a job context that knows its job, token and attempt, and nothing else */
    private static JobContext attempt(String jobId, long token, String attemptId) {
        return (JobContext) java.lang.reflect.Proxy.newProxyInstance(JobContext.class.getClassLoader(),
                new Class<?>[] {JobContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "jobId" -> jobId;
                    case "fencingToken" -> token;
                    case "attemptId" -> attemptId;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aSecondFanOutOfTheSameChannelWaitsUntilTheFirstStopsRunning() {
        String channel = rows.channelWith(600);
        startWorker(fanOut, "w-single-flight", 2);
        String first = FanOuts.start(channel, 100, 100, Map.of());
        await().atMost(TIMEOUT).until(() -> chunksDone(first) >= 1);
        String second = FanOuts.start(channel, 100, null, Map.of());

        await().atMost(FAN_OUT_END).until(() -> redis.job(queue, second).state() == JobState.COMPLETED);
        assertThat(redis.job(queue, first).state()).isEqualTo(JobState.COMPLETED);
        assertThat(rows.firstWrite(second)).as("the second wrote only after the first's last write")
                .isGreaterThanOrEqualTo(rows.lastWrite(first));
        assertThat(redis.events(queue, second)).anySatisfy(event -> assertThat(event.data())
                .contains("waiting for job " + first));
        assertThat(rows.notExactlyOnce("notification", channel, first)).isZero();
        assertThat(rows.notExactlyOnce("notification", channel, second)).isZero();
    }

    private Worker startWorker(PostgresChunkedJob<String> job, String workerId) {
        return startWorker(job, workerId, 1);
    }

    private Worker startWorker(PostgresChunkedJob<String> job, String workerId, int concurrency) {
        JobProcessor processor = new ChunkedProcessor<>(new PostgresSink<>(job, cursors, manager.blockingExecutor()),
                control, queues, metrics, config);
        return workers.start(processor, options(workerId).concurrency(concurrency).build());
    }

    private long chunksDone(String jobId) throws SQLException {
        return cursors.read(jobId).map(Cursor::chunksDone).orElse(0L);
    }

    private double rejected() {
        return FanOuts.rejectedChunks(registry, config.queue());
    }

    /**
     * The fan-out, except that epoch 1 (the first to read) waits after reading its third chunk, and the next epoch
     * before reading its first, each until released.
     */
    private static final class GatedFanOut implements PostgresChunkedJob<String> {

        final CountDownLatch zombieWaits = new CountDownLatch(1);
        final CountDownLatch releaseZombie = new CountDownLatch(1);
        final CountDownLatch successorWaits = new CountDownLatch(1);
        final CountDownLatch releaseSuccessor = new CountDownLatch(1);
        private final PostgresChunkedJob<String> delegate;
        private final AtomicBoolean zombieGated = new AtomicBoolean();
        private final AtomicBoolean successorGated = new AtomicBoolean();
        private final AtomicLong zombieToken = new AtomicLong();
        private final AtomicLong successorToken = new AtomicLong();

        GatedFanOut(PostgresChunkedJob<String> delegate) {
            this.delegate = delegate;
        }

        @Override
        public String queue() {
            return delegate.queue();
        }

        @Override
        public ChunkPlan plan(JobContext job) {
            return delegate.plan(job);
        }

        @Override
        public long total(Connection connection, JobContext job) throws SQLException {
            return delegate.total(connection, job);
        }

        /** @return the fencing token of epoch 1, the one that becomes the zombie (0 before it read) */
        long zombieToken() {
            return zombieToken.get();
        }

        /** @return the fencing token of the epoch that took the job over (0 before it read) */
        long successorToken() {
            return successorToken.get();
        }

        @Override
        public List<String> read(Connection transaction, JobContext job, String cursor, int size) throws SQLException {
            long token = job.fencingToken();
            zombieToken.compareAndSet(0, token);
            if (token > zombieToken.get() && successorGated.compareAndSet(false, true)) {
                successorToken.set(token);
                hold(successorWaits, releaseSuccessor);
            }
            List<String> chunk = delegate.read(transaction, job, cursor, size);
            if (token == zombieToken.get() && "s-000199".equals(cursor) && zombieGated.compareAndSet(false, true)) {
                hold(zombieWaits, releaseZombie);
            }
            return chunk;
        }

        private static void hold(CountDownLatch waiting, CountDownLatch release) throws SQLException {
            waiting.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted", e);
            }
        }

        @Override
        public String cursorAfter(String item) {
            return delegate.cursorAfter(item);
        }

        @Override
        public void write(Connection transaction, JobContext job, List<String> chunk) throws SQLException {
            delegate.write(transaction, job, chunk);
        }
    }
}
