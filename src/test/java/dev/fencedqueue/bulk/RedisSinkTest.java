package dev.fencedqueue.bulk;

import static dev.fencedqueue.testing.TestWorkers.options;
import static dev.fencedqueue.testing.Timeouts.FAN_OUT_END;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.in;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import dev.fencedqueue.config.BulkConfig;
import dev.fencedqueue.notifications.RedisNotificationFanOut;
import dev.fencedqueue.notifications.RedisNotificationKeys;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.HashTags;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.FanOuts;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisNotificationRows;
import dev.fencedqueue.testing.RedisSinkProfile;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis sink ({@code fq.bulk.sink=redis}) on a real Redis and no PostgreSQL: the notification API keeps its
 * data in Redis; an abort stops a fan-out at a chunk boundary and a resume finishes it exactly once; a zombie's
 * chunk is refused by the fence in {@code commitChunk.lua} and writes nothing; a chunk that cannot be applied
 * whole is not applied at all.
 */
@QuarkusTest
@TestProfile(RedisSinkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RedisSinkTest {

    private static final String JOBS = "/admin/queues/notifications/jobs/";

    @Inject
    RedisNotificationFanOut fanOut;

    @Inject
    RedisCursors cursors;

    @Inject
    BulkControl control;

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

    @Inject
    QueueInspector redis;

    private TestWorkers workers;
    private JobQueue queue;
    private RedisNotificationRows rows;

    @BeforeEach
    void workers() {
        workers = new TestWorkers(manager);
        queue = queues.queue(config.queue());
        rows = new RedisNotificationRows(redis::send, "fq");
    }

    @AfterEach
    void stopWorkersAndEmptyTheQueue() {
        workers.stopAll();
        queue.pause().await().atMost(TIMEOUT);
        queue.maintenance().obliterate(true).await().atMost(TIMEOUT);
    }

    @Test
    void notificationApiKeepsSubscribersNotificationsAndCursorInRedis() {
        String channel = "news-" + System.nanoTime();
        List<String> ids = IntStream.range(0, 1000).mapToObj(n -> String.format("u-%04d", n)).toList();
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", ids))
                .post("/notifications/channels/" + channel + "/subscribers").then().statusCode(200).body("added", equalTo(1000));
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of("u-0000", "u-1000")))
                .post("/notifications/channels/" + channel + "/subscribers").then().statusCode(200).body("added", equalTo(1));
        startWorker(fanOut, "w-api");

        String jobId = FanOuts.start(channel, 250, null, Map.of());
        await().atMost(FAN_OUT_END).until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);

        given().get("/notifications/jobs/" + jobId).then().statusCode(200).body("state", equalTo("completed"))
                .body("cursor", equalTo("u-1000")).body("itemsDone", equalTo(1001)).body("chunksDone", equalTo(5))
                .body("itemsTotal", equalTo(1001)).body("singleFlightKey", equalTo(channel));
        FanOuts.admin().get(JOBS + jobId).then().statusCode(200).body("cursor", equalTo("u-1000"))
                .body("chunksDone", equalTo(5)).body("singleFlightKey", equalTo(channel)).body("abortRequested", equalTo(false));
        given().get("/notifications/subscribers/u-0042").then().statusCode(200).body("", hasSize(1))
                .body("[0].channel", equalTo(channel)).body("[0].jobId", equalTo(jobId))
                .body("[0].message", equalTo("to " + channel));
        assertThat(rows.notificationsNotExactlyOnce(channel, jobId)).isZero();
        assertThat(rows.outboxNotExactlyOnce(channel, jobId)).isZero();
        given().post("/notifications/channels/nobody-" + System.nanoTime() + "/fan-out")
                .then().statusCode(415);
        given().contentType(ContentType.JSON).body(Map.of("message", "x"))
                .post("/notifications/channels/nobody-" + System.nanoTime() + "/fan-out").then().statusCode(404);
    }

    @Test
    void abortStopsAtAChunkBoundaryAndResumeFinishesExactlyOnce() {
        String channel = rows.channelWith(2000);
        startWorker(fanOut, "w-abort");
        String jobId = FanOuts.start(channel, 100, 150, Map.of());
        await("three chunks committed").atMost(TIMEOUT).until(() -> chunksDone(channel, jobId) >= 3);
        long firstEpoch = redis.job(queue, jobId).fencingToken();

        FanOuts.admin().post(JOBS + jobId + "/abort").then().statusCode(202).body("state", equalTo("aborting"));
        await("the job stops at a chunk boundary").atMost(TIMEOUT)
                .until(() -> redis.job(queue, jobId).state() == JobState.ABORTED);
        long itemsDone = Long.parseLong(rows.cursorField(channel, jobId, "itemsDone"));
        assertThat(itemsDone).as("items done when aborted").isLessThan(2000).isEqualTo(chunksDone(channel, jobId) * 100);
        assertThat(rows.notifications(channel, jobId)).as("entries = committed items: no half chunk").isEqualTo(itemsDone);
        assertThat(rows.outbox(channel, jobId)).isEqualTo(itemsDone);
        assertThat(rows.cursorField(channel, jobId, "cursor")).isEqualTo(String.format("s-%06d", itemsDone - 1));

        FanOuts.admin().contentType(ContentType.JSON).body(Map.of("pauseBetweenChunksMs", 0)).put(JOBS + jobId + "/throttle")
                .then().statusCode(200);
        FanOuts.admin().post(JOBS + jobId + "/resume").then().statusCode(200).body("state", in(List.of("waiting", "active")));
        await("the resumed job finishes").atMost(FAN_OUT_END).until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);

        long resumed = redis.job(queue, jobId).fencingToken();
        assertThat(resumed).as("the resume ran as a new epoch").isGreaterThan(firstEpoch);
        assertThat(rows.cursorField(channel, jobId, "cursor")).isEqualTo("s-001999");
        assertThat(rows.cursorField(channel, jobId, "fencingToken")).isEqualTo(Long.toString(resumed));
        assertThat(rows.notifications(channel, jobId)).isEqualTo(2000);
        assertThat(rows.notificationsNotExactlyOnce(channel, jobId)).isZero();
        assertThat(rows.outboxNotExactlyOnce(channel, jobId)).isZero();
    }

    /**
     * The zombie commits while the cursor is still where its chunk started, after the newer epoch claimed the
     * cursor: only the fencing token can refuse it, and the newer epoch must then finish as epoch 2.
     */
    @Test
    void zombiesChunkIsRefusedByTheFenceInRedisAndWritesNothing() {
        String channel = rows.channelWith(1000);
        double rejectedBefore = rejected();
        GatedFanOut gated = new GatedFanOut(fanOut);
        Worker zombie = startWorker(gated, "w-zombie");
        String jobId = FanOuts.start(channel, 100, null, Map.of());
        await("epoch 1 read its third chunk and waits").atMost(TIMEOUT).until(gated.zombieWaits::isDone);

        zombie.freeze(true); // no more lock renewals: its lock expires and the job is taken over
        startWorker(gated, "w-successor");
        await("epoch 2 claimed the cursor and waits before its first chunk").atMost(TIMEOUT)
                .until(gated.successorWaits::isDone);
        assertThat(gated.successorToken()).as("a newer epoch").isGreaterThan(gated.zombieToken());
        assertThat(rows.cursorField(channel, jobId, "fencingToken")).isEqualTo(Long.toString(gated.successorToken()));
        assertThat(rows.cursorField(channel, jobId, "cursor")).isEqualTo("s-000199");

        gated.releaseZombie.complete(null); // epoch 1 goes on with the chunk it read
        await("the zombie's chunk is refused").atMost(TIMEOUT).until(() -> rejected() > rejectedBefore);
        assertThat(rows.notifications(channel, jobId)).as("nothing of the zombie's chunk").isEqualTo(200);
        assertThat(rows.outbox(channel, jobId)).isEqualTo(200);
        gated.releaseSuccessor.complete(null);
        await("epoch 2 finishes the job").atMost(FAN_OUT_END)
                .until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);
        zombie.freeze(false);
        await().atMost(TIMEOUT).until(() -> zombie.activeJobIds().isEmpty());

        assertThat(redis.job(queue, jobId).fencingToken()).as("the current epoch was never refused")
                .isEqualTo(gated.successorToken());
        assertThat(rows.notifications(channel, jobId)).isEqualTo(1000);
        assertThat(rows.notificationsNotExactlyOnce(channel, jobId)).isZero();
        assertThat(rows.outboxNotExactlyOnce(channel, jobId)).isZero();
    }

    @Test
    void rejectsAStaleTokenOrAMovedCursorWritingNothing() {
        String cursorKey = "fq:bulk-test:{t" + System.nanoTime() + "}:cursor";
        String list = cursorKey.replace(":cursor", ":list");
        assertThat(claim(cursorKey, 2)).hasValue(Cursor.START);
        assertThat(claim(cursorKey, 1)).as("an older epoch cannot claim it back").isEmpty();

        assertThat(commit(cursorKey, 1, Cursor.START, "a", new RedisChunkWrites(cursorKey).rpush(list, "x")))
                .as("stale token").isFalse();
        assertThat(commit(cursorKey, 2, new Cursor("z", 0, 0), "a", new RedisChunkWrites(cursorKey).rpush(list, "x")))
                .as("the chunk does not start at the committed cursor").isFalse();
        assertThat(redis.exists(list)).isFalse();

        assertThat(commit(cursorKey, 2, Cursor.START, "a", new RedisChunkWrites(cursorKey).rpush(list, "x", "y")))
                .isTrue();
        assertThat(claim(cursorKey, 3)).hasValue(new Cursor("a", 1, 2));
        assertThat(redis.send(Request.cmd(Command.LLEN).arg(list)).toLong()).isEqualTo(2);
    }

    @Test
    void underATokenHandedOutTwiceOnlyTheAttemptThatClaimedTheCursorCommits() {
        // Redis lost the activation of attempt B and handed its token to attempt C, which claimed the cursor after B.
        String cursorKey = "fq:bulk-test:{t" + System.nanoTime() + "}:cursor";
        String list = cursorKey.replace(":cursor", ":list");
        assertThat(claim(cursorKey, 5, "attempt-B")).hasValue(Cursor.START);
        assertThat(claim(cursorKey, 5, "attempt-C")).as("the later activation takes the cursor").hasValue(Cursor.START);

        assertThat(commit(cursorKey, 5, "attempt-B", Cursor.START, "a", new RedisChunkWrites(cursorKey).rpush(list, "b")))
                .as("the forgotten attempt, under the same token").isFalse();
        assertThat(redis.exists(list)).isFalse();
        assertThat(commit(cursorKey, 5, "attempt-C", Cursor.START, "a", new RedisChunkWrites(cursorKey).rpush(list, "c")))
                .isTrue();
        assertThat(redis.send(Request.cmd(Command.LRANGE).arg(list).arg(0).arg(-1)).toString()).isEqualTo("[c]");
    }

    @Test
    void aChunkWithAKeyOfAnotherTypeWritesNothingAtAll() {
        String cursorKey = "fq:bulk-test:{t" + System.nanoTime() + "}:cursor";
        String good = cursorKey.replace(":cursor", ":good");
        String taken = cursorKey.replace(":cursor", ":taken");
        redis.send(Request.cmd(Command.SET).arg(taken).arg("a string"));
        assertThat(claim(cursorKey, 1)).isPresent();

        RedisChunkWrites writes = new RedisChunkWrites(cursorKey).rpush(good, "first").sadd(taken, "member");
        assertThatThrownBy(() -> commit(cursorKey, 1, Cursor.START, "a", writes))
                .hasMessageContaining("`" + taken + "` holds string");
        assertThat(redis.exists(good)).as("the write before the bad one did not happen").isFalse();
        assertThat(claim(cursorKey, 1)).as("the cursor did not move").hasValue(Cursor.START);

        RedisChunkWrites notANumber = new RedisChunkWrites(cursorKey).rpush(good, "first").incrby(taken, 1);
        assertThatThrownBy(() -> commit(cursorKey, 1, Cursor.START, "a", notANumber)).hasMessageContaining("integer");
        assertThat(redis.exists(good)).isFalse();
    }

    @Test
    void refusesToRecordAKeyOutsideTheCursorKeysHashSlot() {
        RedisChunkWrites writes = new RedisChunkWrites("fq:notify:{news}:cursor:1");
        assertThatThrownBy(() -> writes.lpush("fq:notify:{sports}:inbox:u-1", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("{news}");
        assertThatThrownBy(() -> writes.lpush("fq:notify:{news}:cursor:1", "x")).hasMessageContaining("cursor key");
        assertThat(writes.lpush("fq:notify:{news}:inbox:u-1", "x").size()).isEqualTo(1);
        assertThat(HashTags.of("a{}b")).as("an empty tag hashes the whole key").isEqualTo("a{}b");
        assertThat(new RedisNotificationKeys("fq").inbox("news", "u-1")).startsWith("fq:notify:{news}:");
    }

    private java.util.Optional<Cursor> claim(String cursorKey, long token) {
        return claim(cursorKey, token, "attempt-" + token);
    }

    private java.util.Optional<Cursor> claim(String cursorKey, long token, String attemptId) {
        return cursors.claim(cursorKey, token, attemptId).await().atMost(TIMEOUT);
    }

    private boolean commit(String cursorKey, long token, Cursor from, String to, RedisChunkWrites writes) {
        return commit(cursorKey, token, "attempt-" + token, from, to, writes);
    }

    private boolean commit(String cursorKey, long token, String attemptId, Cursor from, String to,
            RedisChunkWrites writes) {
        return cursors.commit(token, attemptId, from, to, 2, writes).await().atMost(TIMEOUT);
    }

    private Worker startWorker(RedisChunkedJob<String> job, String workerId) {
        return workers.start(new ChunkedProcessor<>(new RedisSink<>(job, cursors, queues.redis()), control, queues,
                metrics, config), options(workerId).build());
    }

    private long chunksDone(String channel, String jobId) {
        String chunks = rows.cursorField(channel, jobId, "chunksDone");
        return chunks == null ? 0 : Long.parseLong(chunks);
    }

    private double rejected() {
        return FanOuts.rejectedChunks(registry, config.queue());
    }

    /**
     * The fan-out, except that epoch 1 (the first to read) waits after reading its third chunk, and the next epoch
     * before reading its first, each until released (without blocking: the reads are {@code Uni}s).
     */
    private static final class GatedFanOut implements RedisChunkedJob<String> {

        final CompletableFuture<Void> zombieWaits = new CompletableFuture<>();
        final CompletableFuture<Void> releaseZombie = new CompletableFuture<>();
        final CompletableFuture<Void> successorWaits = new CompletableFuture<>();
        final CompletableFuture<Void> releaseSuccessor = new CompletableFuture<>();
        private final RedisChunkedJob<String> delegate;
        private final AtomicBoolean zombieGated = new AtomicBoolean();
        private final AtomicBoolean successorGated = new AtomicBoolean();
        private final AtomicLong zombieToken = new AtomicLong();
        private final AtomicLong successorToken = new AtomicLong();

        GatedFanOut(RedisChunkedJob<String> delegate) {
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
        public String cursorAfter(String item) {
            return delegate.cursorAfter(item);
        }

        @Override
        public String cursorKey(JobContext job) {
            return delegate.cursorKey(job);
        }

        @Override
        public Uni<Long> total(SharedConnection redis, JobContext job) {
            return delegate.total(redis, job);
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
        public Uni<List<String>> read(SharedConnection redis, JobContext job, String cursor, int size) {
            long token = job.fencingToken();
            zombieToken.compareAndSet(0, token);
            Uni<Void> before = Uni.createFrom().voidItem();
            if (token > zombieToken.get() && successorGated.compareAndSet(false, true)) {
                successorToken.set(token);
                successorWaits.complete(null);
                before = Uni.createFrom().completionStage(releaseSuccessor);
            }
            Uni<List<String>> chunk = before.chain(() -> delegate.read(redis, job, cursor, size));
            if (token == zombieToken.get() && "s-000199".equals(cursor) && zombieGated.compareAndSet(false, true)) {
                return chunk.call(() -> {
                    zombieWaits.complete(null);
                    return Uni.createFrom().completionStage(releaseZombie);
                });
            }
            return chunk;
        }

        @Override
        public void write(RedisChunkWrites writes, JobContext job, List<String> chunk) {
            delegate.write(writes, job, chunk);
        }
    }
}
