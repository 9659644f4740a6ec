package dev.fencedqueue.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.bulk.BulkMetrics;
import dev.fencedqueue.bulk.ChunkedProcessor;
import dev.fencedqueue.bulk.Cursor;
import dev.fencedqueue.bulk.RedisCursors;
import dev.fencedqueue.bulk.RedisSink;
import dev.fencedqueue.config.BulkConfig;
import dev.fencedqueue.notifications.RedisNotificationFanOut;
import dev.fencedqueue.notifications.RedisNotificationKeys;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
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
 * see BENCHMARKS.md): the fenced fan-out's rate into Redis (100,000 subscribers, chunks of 500, no throttle: per
 * subscriber one notification-center entry and one push-outbox entry, each chunk in one {@code commitChunk.lua}),
 * beside the sink's ceiling measured in the same run (the same chunks read the same way and the same commands pipelined
 * on the same connection, without fencing, cursor or Lua), and the abort latency beside one chunk's duration.
 * {@code bench.runs} times (3), interleaved.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class RedisFanOutBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 3);
    private static final int SUBSCRIBERS = Integer.getInteger("bench.subscribers", 100_000);
    private static final int CHUNK = 500;

    @Inject
    BenchContext bench;

    @Inject
    RedisNotificationFanOut fanOut;

    @Inject
    BulkControl control;

    @Inject
    RedisCursors cursors;

    @Inject
    BulkMetrics metrics;

    @Inject
    BulkConfig config;

    @Inject
    QueueInspector inspector;

    private RedisNotificationRows rows;
    private RedisNotificationKeys keys;

    @Test
    void measuresTheRedisFanOutAgainstPlainPipelinedWritesAndTheAbortLatency() {
        rows = new RedisNotificationRows(inspector::send, "fq");
        keys = fanOut.keys();
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("environment", Runtime.getRuntime().availableProcessors(), "cores", "\"subscribers\": "
                + SUBSCRIBERS + ", \"chunkSize\": " + CHUNK + ", \"redis\": \""
                + inspector.infoText("server", "redis_version") + "\", \"runs\": " + RUNS);
        SharedConnection redis = bench.queues().redis();
        Worker worker = bench.startWorker(new ChunkedProcessor<>(fanOut, new RedisSink<>(fanOut, cursors, redis), control,
                bench.queues(), metrics, config), 1);
        JobQueue queue = bench.queues().queue(config.queue());
        String channel = rows.channelWith(SUBSCRIBERS);
        for (int warmUp = 0; warmUp < 3; warmUp++) { // unrecorded: both paths JIT-compiled before the first run
            fenced(queue, channel);
            plain(redis, channel);
        }
        try {
            for (int run = 1; run <= RUNS; run++) {
                String fields = "\"loadAvg1m\": " + BenchContext.loadAverage();
                double ceiling = plain(redis, channel);
                report.record("redis_fan_out_plain_pipelined_ceiling", ceiling, "notifications/s", run, fields);
                double fenced = fenced(queue, channel);
                report.record("redis_fan_out_fenced", fenced, "notifications/s", run, fields);
                report.record("redis_fan_out_fenced_vs_ceiling", fenced / ceiling, "ratio", run, "\"goal\": \">= 0.8\"");
                double[] abort = abortLatency(queue, channel);
                report.record("redis_fan_out_abort_latency", abort[0], "ms", run, "\"chunkMs\": " + abort[1]);
                report.record("redis_fan_out_chunk_duration", abort[1], "ms", run,
                        "\"goal\": \"abort <= chunk + 100 ms\"");
            }
        } finally {
            bench.stop(worker);
        }
        report.medians();
    }

    /** One fenced fan-out to every subscriber; notifications per second from the add to the completion. */
    private double fenced(JobQueue queue, String channel) {
        rows.clear(channel);
        long start = System.nanoTime();
        String jobId = FanOutJobs.add(queue, channel, CHUNK);
        FanOutJobs.awaitState(queue, jobId, JobState.COMPLETED);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(rows.notifications(channel, jobId)).isEqualTo(SUBSCRIBERS);
        return SUBSCRIBERS / seconds;
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

    /**
     * @return the ms from the abort request to the job stopped ({@code aborted}), and the mean ms of one chunk of
     *         that job
     */
    private double[] abortLatency(JobQueue queue, String channel) {
        rows.clear(channel);
        String jobId = FanOutJobs.add(queue, channel, CHUNK);
        String cursorKey = keys.cursor(channel, jobId);
        long deadline = System.nanoTime() + FanOutJobs.TIMEOUT.toNanos();
        while (chunksDone(cursorKey) < 20 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        long started = queue.getJob(jobId).await().atMost(BenchContext.TIMEOUT).processedOn();
        long askedAt = System.nanoTime();
        long askedAtMs = System.currentTimeMillis();
        control.abort(queue.name(), jobId, Duration.ofHours(1), "benchmark abort").await().atMost(BenchContext.TIMEOUT);
        FanOutJobs.awaitState(queue, jobId, JobState.ABORTED);
        double latencyMs = (System.nanoTime() - askedAt) / 1e6;
        long chunks = chunksDone(cursorKey);
        double chunkMs = (double) (askedAtMs - started) / Math.max(1, chunks);
        assertThat(rows.notifications(channel, jobId)).isEqualTo(chunks * CHUNK);
        return new double[] {latencyMs, chunkMs};
    }

    private long chunksDone(String cursorKey) {
        return cursors.read(cursorKey).await().atMost(BenchContext.TIMEOUT).map(Cursor::chunksDone).orElse(0L);
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
