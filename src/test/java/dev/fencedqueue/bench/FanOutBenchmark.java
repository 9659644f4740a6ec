package dev.fencedqueue.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.bulk.ChunkedProcessors;
import dev.fencedqueue.bulk.Cursor;
import dev.fencedqueue.bulk.PostgresCursors;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.notifications.PostgresNotificationFanOut;
import dev.fencedqueue.queue.JobQueue;
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
 * BENCHMARKS.md), {@link FanOutScenario}'s figures: the fenced fan-out's rate into the embedded PostgreSQL
 * (100,000 subscribers, chunks of 500, no throttle), beside the sink's ceiling measured in the same run (the same rows
 * written by plain batched inserts of the same chunks, without fencing, cursor or Redis), and the abort latency (the
 * operator's abort request to the job stopped at a chunk boundary), beside one chunk's duration. {@code bench.runs}
 * times (3), interleaved.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class FanOutBenchmark {

    private static final int SUBSCRIBERS = FanOutScenario.SUBSCRIBERS;
    private static final int CHUNK = FanOutScenario.CHUNK;

    @Inject
    BenchContext bench;

    @Inject
    PostgresNotificationFanOut fanOut;

    @Inject
    ChunkedProcessors processors;

    @Inject
    BulkControl control;

    @Inject
    PostgresCursors cursors;

    @Inject
    BulkConfig config;

    @PostgresTestResource.InjectPostgres
    NotificationRows rows;

    /** Optional: Quarkus checks the injection points of every test class, also when another one runs without it. */
    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    java.util.Optional<String> jdbcUrl;

    @Test
    void measuresTheFanOutAgainstPlainInsertsAndTheAbortLatency() throws Exception {
        String server = "\"postgres\": \"" + serverVersion() + "\"";
        Worker worker = bench.startWorker(processors.postgres(fanOut), 1);
        JobQueue queue = bench.queues().queue(config.queue());
        String channel = rows.channelWith(SUBSCRIBERS);
        new FanOutScenario("fan_out", "plain_insert_ceiling", 1, new Rows(), control)
                .run(bench, worker, queue, channel, server);
    }

    /** The PostgreSQL sink's counts (rows of the job, its cursor row) and ceiling ({@link #plain}). */
    private final class Rows implements FanOutScenario.Sink {

        @Override
        public long notifications(String channel, String jobId) {
            return rows.rows("notification", jobId);
        }

        @Override
        public long chunksDone(String channel, String jobId) throws SQLException {
            return cursors.read(jobId).map(Cursor::chunksDone).orElse(0L);
        }

        @Override
        public double plain(String channel) throws SQLException {
            return FanOutBenchmark.this.plain(channel);
        }
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
