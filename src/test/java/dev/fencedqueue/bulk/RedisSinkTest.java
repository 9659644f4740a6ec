package dev.fencedqueue.bulk;

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
import java.util.stream.IntStream;

import dev.fencedqueue.notifications.RedisNotificationFanOut;
import dev.fencedqueue.notifications.RedisNotificationKeys;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.redis.HashTags;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.FanOutRows;
import dev.fencedqueue.testing.FanOuts;
import dev.fencedqueue.testing.RedisNotificationRows;
import dev.fencedqueue.testing.RedisSinkAndTracesProfile;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chunked-job runtime with the Redis sink ({@code fq.bulk.sink=redis}) on a real Redis and no PostgreSQL: the
 * sink contract ({@link ChunkSinkContractTest}, its fence being {@code commitChunk.lua}'s token check); the
 * notification API keeping its data in Redis; and {@code commitChunk.lua} writing nothing when the token is stale,
 * the cursor moved, the attempt is not the one that claimed the cursor, or a key has another type.
 */
@QuarkusTest
@TestProfile(RedisSinkAndTracesProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class RedisSinkTest extends ChunkSinkContractTest {

    @Inject
    RedisNotificationFanOut fanOut;

    @Inject
    RedisCursors cursors;

    @Inject
    ChunkedProcessors processors;

    private RedisNotificationRows rows;

    @BeforeEach
    void connectRows() {
        rows = new RedisNotificationRows(redis::send, "fq");
    }

    @Test
    void notificationApiKeepsSubscribersNotificationsAndCursorInRedis() {
        String channel = "news-" + System.nanoTime();
        List<String> ids = IntStream.range(0, 1000).mapToObj(n -> String.format("u-%04d", n)).toList();
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", ids))
                .post("/notifications/channels/" + channel + "/subscribers").then().statusCode(200).body("added", equalTo(1000));
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of("u-0000", "u-1000")))
                .post("/notifications/channels/" + channel + "/subscribers").then().statusCode(200).body("added", equalTo(1));
        startWorker("w-api", 1);

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

    @Override
    protected FanOutRows rows() {
        return rows;
    }

    @Override
    protected JobProcessor fanOut(ReadGate gate) {
        return processors.redis(new Gated(fanOut, gate));
    }

    @Override
    protected Cursor cursor(String channel, String jobId) {
        String position = rows.cursorField(channel, jobId, "cursor");
        return position == null ? Cursor.START : new Cursor(position,
                Long.parseLong(rows.cursorField(channel, jobId, "chunksDone")),
                Long.parseLong(rows.cursorField(channel, jobId, "itemsDone")));
    }

    @Override
    protected long cursorToken(String channel, String jobId) {
        return Long.parseLong(rows.cursorField(channel, jobId, "fencingToken"));
    }

    /** The fan-out, its reads passing through a {@link ReadGate}; a held read waits as a {@code Uni}. */
    private static final class Gated extends ReadGate.GatedJob<RedisChunkedJob<String>>
            implements RedisChunkedJob<String> {

        Gated(RedisChunkedJob<String> delegate, ReadGate gate) {
            super(delegate, gate);
        }

        @Override
        public String cursorKey(JobContext job) {
            return delegate.cursorKey(job);
        }

        @Override
        public Uni<Long> total(SharedConnection redis, JobContext job) {
            return delegate.total(redis, job);
        }

        @Override
        public Uni<List<String>> read(SharedConnection redis, JobContext job, String cursor, int size) {
            return Uni.createFrom().completionStage(() -> gate.beforeRead(job, cursor))
                    .chain(() -> delegate.read(redis, job, cursor, size))
                    .call(() -> Uni.createFrom().completionStage(() -> gate.afterRead(job, cursor)));
        }

        @Override
        public void write(RedisChunkWrites writes, JobContext job, List<String> chunk) {
            delegate.write(writes, job, chunk);
        }
    }
}
