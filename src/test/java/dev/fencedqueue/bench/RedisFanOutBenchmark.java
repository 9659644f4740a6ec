package dev.fencedqueue.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.bulk.ChunkedProcessors;
import dev.fencedqueue.bulk.Cursor;
import dev.fencedqueue.bulk.RedisCursors;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.notifications.RedisNotificationFanOut;
import dev.fencedqueue.notifications.RedisNotificationKeys;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisNotificationRows;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The notification fan-out into the Redis sink (not a test: {@code ./mvnw -Pbench test -Dtest=RedisFanOutBenchmark},
 * see BENCHMARKS.md), {@link FanOutScenario}'s figures: the fenced fan-out's rate into Redis (100,000 subscribers,
 * chunks of 500, no throttle: per subscriber one notification-center entry and one push-outbox entry, each chunk in one
 * {@code commitChunk.lua}), beside the sink's ceiling measured in the same run (the same chunks read the same way and
 * the same commands pipelined on the same connection, without fencing, cursor or Lua), and the abort latency beside
 * one chunk's duration. {@code bench.runs} times (3), interleaved, after three unrecorded warm-ups.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class RedisFanOutBenchmark {

    private static final int SUBSCRIBERS = FanOutScenario.SUBSCRIBERS;
    private static final int CHUNK = FanOutScenario.CHUNK;

    @Inject
    BenchContext bench;

    @Inject
    RedisNotificationFanOut fanOut;

    @Inject
    ChunkedProcessors processors;

    @Inject
    BulkControl control;

    @Inject
    RedisCursors cursors;

    @Inject
    BulkConfig config;

    @Inject
    QueueInspector inspector;

    private RedisNotificationRows rows;
    private RedisNotificationKeys keys;

    @Test
    void measuresTheRedisFanOutAgainstPlainPipelinedWritesAndTheAbortLatency() throws Exception {
        rows = new RedisNotificationRows(inspector::send, "fq");
        keys = fanOut.keys();
        String server = "\"redis\": \"" + inspector.infoText("server", "redis_version") + "\"";
        SharedConnection redis = bench.redis();
        Worker worker = bench.startWorker(processors.redis(fanOut), 1);
        JobQueue queue = bench.queues().queue(config.queue());
        String channel = rows.channelWith(SUBSCRIBERS);
        new FanOutScenario("redis_fan_out", "plain_pipelined_ceiling", 3, new Entries(redis), control)
                .run(bench, worker, queue, channel, server);
    }

    /**
     * The Redis sink's counts (the notification-center entries of the job, its cursor), emptied before each fan-out,
     * and ceiling ({@link #plain}).
     */
    private final class Entries implements FanOutScenario.Sink {

        private final SharedConnection redis;

        Entries(SharedConnection redis) {
            this.redis = redis;
        }

        @Override
        public void clear(String channel) {
            rows.clear(channel);
        }

        @Override
        public long notifications(String channel, String jobId) {
            return rows.notifications(channel, jobId);
        }

        @Override
        public long chunksDone(String channel, String jobId) {
            return cursors.read(keys.cursor(channel, jobId)).await().atMost(BenchContext.TIMEOUT)
                    .map(Cursor::chunksDone).orElse(0L);
        }

        @Override
        public double plain(String channel) {
            return RedisFanOutBenchmark.this.plain(redis, channel);
        }
    }

    /**
     * The sink's ceiling: the same chunks, read the same way ({@code ZRANGEBYLEX} after the last id) and written by
     * the same commands (one {@code LPUSH} and one {@code XADD} per subscriber), pipelined on the same shared
     * connection, one chunk after the other, with no fencing, no cursor and no Lua.
     */
    private double plain(SharedConnection redis, String channel) {
        rows.clear(channel);
        String jobId = "plain-" + UUID.randomUUID();
        String entry = "{\"channel\":\"" + channel + "\",\"jobId\":\"" + jobId + "\",\"message\":\"benchmark\","
                + "\"createdAt\":\"" + OffsetDateTime.now() + "\"}";
        String payload = "{\"channel\":\"" + channel + "\",\"message\":\"benchmark\",\"jobId\":\"" + jobId + "\"}";
        long start = System.nanoTime();
        String cursor = "";
        while (true) {
            List<String> chunk = read(redis, channel, cursor);
            if (chunk.isEmpty()) {
                break;
            }
            List<Uni<Response>> writes = new ArrayList<>(2 * chunk.size());
            for (String id : chunk) {
                writes.add(redis.send(Request.cmd(Command.LPUSH).arg(keys.inbox(channel, id)).arg(entry)));
                writes.add(redis.send(Request.cmd(Command.XADD).arg(keys.outbox(channel)).arg("*").arg("subscriberId")
                        .arg(id).arg("jobId").arg(jobId).arg("payload").arg(payload)));
            }
            Uni.join().all(writes).andFailFast().await().atMost(BenchContext.TIMEOUT);
            cursor = chunk.get(chunk.size() - 1);
        }
        double rate = SUBSCRIBERS / ((System.nanoTime() - start) / 1e9);
        assertThat(rows.notifications(channel, jobId)).isEqualTo(SUBSCRIBERS);
        return rate;
    }

    private List<String> read(SharedConnection redis, String channel, String cursor) {
        Response ids = redis.send(Request.cmd(Command.ZRANGEBYLEX).arg(keys.subscribers(channel))
                .arg(cursor.isEmpty() ? "-" : "(" + cursor).arg("+").arg("LIMIT").arg(0).arg(CHUNK))
                .await().atMost(BenchContext.TIMEOUT);
        List<String> chunk = new ArrayList<>(ids.size());
        ids.forEach(id -> chunk.add(id.toString()));
        return chunk;
    }
}
