package dev.fencedqueue.notifications;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.bulk.ChunkPlan;
import dev.fencedqueue.bulk.PostgresChunkedJob;
import dev.fencedqueue.bulk.Throttle;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.UnrecoverableJobException;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The notification fan-out bulk job into the PostgreSQL sink ({@code fq.bulk.sink=postgresql}, the default): notify
 * every subscriber of a channel, one notification-center row and one push-outbox row per subscriber, walking the subscribers in {@code subscriber_id} order (the cursor is the last
 * subscriber id of the last committed chunk). The channel is the job's single-flight key.
 */
@ApplicationScoped
public class PostgresNotificationFanOut implements PostgresChunkedJob<String> {

    private static final String COUNT = "SELECT count(*) FROM channel_subscriber WHERE channel = ?";
    private static final String READ = "SELECT subscriber_id FROM channel_subscriber WHERE channel = ? "
            + "AND subscriber_id > ? ORDER BY subscriber_id LIMIT ?";
    private static final String NOTIFY = "INSERT INTO notification (channel, subscriber_id, job_id, message) "
            + "SELECT ?, id, ?, ? FROM unnest(?::text[]) AS id";
    private static final String OUTBOX = "INSERT INTO push_outbox (subscriber_id, job_id, payload) "
            + "SELECT id, ?, ?::jsonb FROM unnest(?::text[]) AS id";

    private final BulkConfig config;
    private final ObjectMapper json;

    public PostgresNotificationFanOut(BulkConfig config, ObjectMapper json) {
        this.config = config;
        this.json = json;
    }

    @Override
    public String queue() {
        return config.queue();
    }

    /** @return {@link FanOut}: a fan-out added over the API is checked as {@code POST .../fan-out} checks it */
    @Override
    public Optional<Class<?>> dataType() {
        return Optional.of(FanOut.class);
    }

    @Override
    public ChunkPlan plan(JobContext job) {
        return plan(job.data(FanOut.class));
    }

    /** @return how a fan-out runs: its chunk size and throttle, its channel as single-flight key */
    static ChunkPlan plan(FanOut fanOut) {
        if (fanOut == null) {
            throw new UnrecoverableJobException("a fan-out has no data: it needs `channel`, `message` and `chunkSize`");
        }
        return new ChunkPlan(fanOut.chunkSize(), fanOut.throttle() == null ? Throttle.NONE : fanOut.throttle(),
                fanOut.channel());
    }

    /** @return the push payload of a fan-out, JSON: {@code channel}, {@code message}, {@code jobId} */
    static String payload(ObjectMapper json, FanOut fanOut, String jobId) {
        return json.createObjectNode().put("channel", fanOut.channel()).put("message", fanOut.message())
                .put("jobId", jobId).toString();
    }

    @Override
    public long total(Connection connection, JobContext job) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(COUNT)) {
            count.setString(1, job.data(FanOut.class).channel());
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    @Override
    public List<String> read(Connection transaction, JobContext job, String cursor, int size) throws SQLException {
        try (PreparedStatement read = transaction.prepareStatement(READ)) {
            read.setString(1, job.data(FanOut.class).channel());
            read.setString(2, cursor);
            read.setInt(3, size);
            List<String> ids = new ArrayList<>(size);
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
            return ids;
        }
    }

    @Override
    public String cursorAfter(String subscriberId) {
        return subscriberId;
    }

    @Override
    public long write(Connection transaction, JobContext job, List<String> chunk) throws SQLException {
        FanOut fanOut = job.data(FanOut.class);
        Object[] ids = chunk.toArray();
        long rows;
        try (PreparedStatement notify = transaction.prepareStatement(NOTIFY)) {
            notify.setString(1, fanOut.channel());
            notify.setString(2, job.jobId());
            notify.setString(3, fanOut.message());
            notify.setArray(4, transaction.createArrayOf("text", ids));
            rows = notify.executeUpdate();
        }
        try (PreparedStatement outbox = transaction.prepareStatement(OUTBOX)) {
            outbox.setString(1, job.jobId());
            outbox.setString(2, payload(json, fanOut, job.jobId()));
            outbox.setArray(3, transaction.createArrayOf("text", ids));
            rows += outbox.executeUpdate();
        }
        return rows;
    }
}
