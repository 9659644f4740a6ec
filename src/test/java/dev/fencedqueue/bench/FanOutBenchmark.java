package dev.fencedqueue.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
import dev.fencedqueue.bulk.PostgresCursors;
import dev.fencedqueue.bulk.PostgresSink;
import dev.fencedqueue.config.BulkConfig;
import dev.fencedqueue.notifications.PostgresNotificationFanOut;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The notification fan-out into PostgreSQL (not a test: {@code ./mvnw -Pbench test -Dtest=FanOutBenchmark}, see
 * BENCHMARKS.md): the fenced fan-out's rate into the embedded PostgreSQL (100,000 subscribers, chunks of 500, no
 * throttle), beside the sink's ceiling measured in the same run (the same rows written by plain batched inserts of the
 * same chunks, without fencing, cursor or Redis), and the abort latency (the operator's abort request to the job
 * stopped at a chunk boundary), beside one chunk's duration. {@code bench.runs} times (3), interleaved.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class FanOutBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 3);
    private static final int SUBSCRIBERS = Integer.getInteger("bench.subscribers", 100_000);
    private static final int CHUNK = 500;

    @Inject
    BenchContext bench;

    @Inject
    PostgresNotificationFanOut fanOut;

    @Inject
    BulkControl control;

    @Inject
    PostgresCursors cursors;

    @Inject
    BulkMetrics metrics;

    @Inject
    BulkConfig config;

    @PostgresTestResource.InjectPostgres
    NotificationRows rows;

    /** Optional: Quarkus checks the injection points of every test class, also when another one runs without it. */
    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    java.util.Optional<String> jdbcUrl;

    @Test
    void measuresTheFanOutAgainstPlainInsertsAndTheAbortLatency() throws SQLException {
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("environment", Runtime.getRuntime().availableProcessors(), "cores", "\"subscribers\": "
                + SUBSCRIBERS + ", \"chunkSize\": " + CHUNK + ", \"postgres\": \"" + serverVersion() + "\", \"runs\": " + RUNS);
        Worker worker = bench.startWorker(new ChunkedProcessor<>(fanOut, new PostgresSink<>(fanOut, cursors,
                bench.workers().blockingExecutor()), control, bench.queues(), metrics, config), 1);
        JobQueue queue = bench.queues().queue(config.queue());
        String channel = rows.channelWith(SUBSCRIBERS);
        fenced(queue, channel); // unrecorded warm-up of both paths
        plain(channel);
        try {
            for (int run = 1; run <= RUNS; run++) {
                String fields = "\"loadAvg1m\": " + BenchContext.loadAverage();
                double ceiling = plain(channel);
                report.record("fan_out_plain_insert_ceiling", ceiling, "notifications/s", run, fields);
                double fenced = fenced(queue, channel);
                report.record("fan_out_fenced", fenced, "notifications/s", run, fields);
                report.record("fan_out_fenced_vs_ceiling", fenced / ceiling, "ratio", run, "\"goal\": \">= 0.8\"");
                double[] abort = abortLatency(queue, channel);
                report.record("fan_out_abort_latency", abort[0], "ms", run, "\"chunkMs\": " + abort[1]);
                report.record("fan_out_chunk_duration", abort[1], "ms", run, "\"goal\": \"abort <= chunk + 100 ms\"");
            }
        } finally {
            bench.stop(worker);
        }
        report.medians();
    }

    /** One fenced fan-out to every subscriber; notifications per second from the add to the completion. */
    private double fenced(JobQueue queue, String channel) {
        long start = System.nanoTime();
        String jobId = FanOutJobs.add(queue, channel, CHUNK);
        FanOutJobs.awaitState(queue, jobId, JobState.COMPLETED);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(rows.rows("notification", jobId)).isEqualTo(SUBSCRIBERS);
        return SUBSCRIBERS / seconds;
    }

    /**
     * The sink's ceiling: the same chunks, read the same way (keyset pagination) and written by the same two
     * inserts, one transaction per chunk, with no fencing, no cursor row and no Redis.
     */
    private double plain(String channel) throws SQLException {
        String jobId = "plain-" + UUID.randomUUID();
        long start = System.nanoTime();
        try (Connection connection = DriverManager.getConnection(jdbcUrl.orElseThrow(), "postgres", "postgres")) {
            String cursor = "";
            while (true) {
                List<String> chunk = read(connection, channel, cursor);
                if (chunk.isEmpty()) {
                    break;
                }
                connection.setAutoCommit(false);
                insert(connection, channel, jobId, chunk);
                connection.commit();
                connection.setAutoCommit(true);
                cursor = chunk.get(chunk.size() - 1);
            }
        }
        return SUBSCRIBERS / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * @return the ms from the abort request to the job stopped ({@code aborted}), and the mean ms of one chunk of
     *         that job
     */
    private double[] abortLatency(JobQueue queue, String channel) throws SQLException {
        String jobId = FanOutJobs.add(queue, channel, CHUNK);
        long deadline = System.nanoTime() + FanOutJobs.TIMEOUT.toNanos();
        while (cursors.read(jobId).map(c -> c.chunksDone()).orElse(0L) < 20 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        long started = queue.getJob(jobId).await().atMost(BenchContext.TIMEOUT).processedOn();
        long askedAt = System.nanoTime();
        long askedAtMs = System.currentTimeMillis();
        control.abort(queue.name(), jobId, Duration.ofHours(1), "benchmark abort").await().atMost(BenchContext.TIMEOUT);
        FanOutJobs.awaitState(queue, jobId, JobState.ABORTED);
        double latencyMs = (System.nanoTime() - askedAt) / 1e6;
        long chunks = cursors.read(jobId).orElseThrow().chunksDone();
        double chunkMs = (double) (askedAtMs - started) / Math.max(1, chunks);
        assertThat(rows.rows("notification", jobId)).isEqualTo(chunks * CHUNK);
        return new double[] {latencyMs, chunkMs};
    }

    private static List<String> read(Connection connection, String channel, String cursor) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement("SELECT subscriber_id FROM channel_subscriber "
                + "WHERE channel = ? AND subscriber_id > ? ORDER BY subscriber_id LIMIT ?")) {
            read.setString(1, channel);
            read.setString(2, cursor);
            read.setInt(3, CHUNK);
            List<String> ids = new ArrayList<>(CHUNK);
            try (ResultSet result = read.executeQuery()) {
                while (result.next()) {
                    ids.add(result.getString(1));
                }
            }
            return ids;
        }
    }

    private static void insert(Connection connection, String channel, String jobId, List<String> chunk)
            throws SQLException {
        Object[] ids = chunk.toArray();
        try (PreparedStatement notify = connection.prepareStatement("INSERT INTO notification (channel, subscriber_id, "
                + "job_id, message) SELECT ?, id, ?, ? FROM unnest(?::text[]) AS id")) {
            notify.setString(1, channel);
            notify.setString(2, jobId);
            notify.setString(3, "benchmark");
            notify.setArray(4, connection.createArrayOf("text", ids));
            notify.executeUpdate();
        }
        try (PreparedStatement outbox = connection.prepareStatement("INSERT INTO push_outbox (subscriber_id, job_id, "
                + "payload) SELECT id, ?, ?::jsonb FROM unnest(?::text[]) AS id")) {
            outbox.setString(1, jobId);
            outbox.setString(2, "{\"channel\":\"" + channel + "\",\"message\":\"benchmark\",\"jobId\":\"" + jobId + "\"}");
            outbox.setArray(3, connection.createArrayOf("text", ids));
            outbox.executeUpdate();
        }
    }

    private String serverVersion() throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl.orElseThrow(), "postgres", "postgres")) {
            return connection.getMetaData().getDatabaseProductVersion();
        }
    }
}
