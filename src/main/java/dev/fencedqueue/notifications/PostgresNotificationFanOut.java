package dev.fencedqueue.notifications;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.bulk.PostgresChunkedJob;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.worker.JobContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The notification fan-out bulk job into the PostgreSQL sink ({@code fq.bulk.sink=postgresql}, the default): notify
 * every subscriber of a channel, one notification-center row and one push-outbox row per subscriber, walking the subscribers in {@code subscriber_id} order (the cursor is the last
 * subscriber id of the last committed chunk). The channel is the job's single-flight key.
 */
@ApplicationScoped
public class PostgresNotificationFanOut implements PostgresChunkedJob<String>, NotificationFanOut {

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
            outbox.setString(2, fanOut.payload(json, job.jobId()));
            outbox.setArray(3, transaction.createArrayOf("text", ids));
            rows += outbox.executeUpdate();
        }
        return rows;
    }
}
