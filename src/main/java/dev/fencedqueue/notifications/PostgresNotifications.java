package dev.fencedqueue.notifications;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.bulk.Database;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The PostgreSQL side of notifications outside the fan-out's chunks: channel subscribers and a subscriber's
 * notifications. Every method blocks (JDBC): call it on a worker or virtual thread.
 */
@ApplicationScoped
public class SubscriberDirectory {

    private static final String ADD = "INSERT INTO channel_subscriber (channel, subscriber_id) "
            + "SELECT ?, id FROM unnest(?::text[]) AS id ON CONFLICT DO NOTHING";
    private static final String HAS_SUBSCRIBERS = "SELECT EXISTS (SELECT 1 FROM channel_subscriber WHERE channel = ?)";
    private static final String NOTIFICATIONS = "SELECT channel, job_id, message, created_at FROM notification "
            + "WHERE subscriber_id = ? ORDER BY id DESC LIMIT ?";

    /**
     * One delivered notification.
     *
     * @param channel the channel it went to
     * @param jobId the fan-out that delivered it
     * @param message its text
     * @param createdAt when it was written, ISO-8601
     */
    @RegisterForReflection
    public record Notification(String channel, String jobId, String message, String createdAt) {
    }

    private final Database database;

    public SubscriberDirectory(Database database) {
        this.database = database;
    }

    /**
     * Adds subscribers to a channel; adding an existing one again does nothing.
     *
     * @param channel a valid channel name
     * @param subscriberIds valid subscriber ids, at least one
     * @return how many were new
     * @throws SQLException when the database fails
     */
    public int add(String channel, List<String> subscriberIds) throws SQLException {
        try (Connection connection = database.connection(); PreparedStatement add = connection.prepareStatement(ADD)) {
            Array ids = connection.createArrayOf("text", subscriberIds.toArray());
            add.setString(1, channel);
            add.setArray(2, ids);
            return add.executeUpdate();
        }
    }

    /**
     * @param channel a channel name
     * @return whether it has at least one subscriber
     * @throws SQLException when the database fails
     */
    public boolean hasSubscribers(String channel) throws SQLException {
        try (Connection connection = database.connection();
                PreparedStatement exists = connection.prepareStatement(HAS_SUBSCRIBERS)) {
            exists.setString(1, channel);
            try (ResultSet row = exists.executeQuery()) {
                return row.next() && row.getBoolean(1);
            }
        }
    }

    /**
     * @param subscriberId a subscriber id
     * @param limit the most to return
     * @return its notifications, newest first
     * @throws SQLException when the database fails
     */
    public List<Notification> notifications(String subscriberId, int limit) throws SQLException {
        try (Connection connection = database.connection();
                PreparedStatement select = connection.prepareStatement(NOTIFICATIONS)) {
            select.setString(1, subscriberId);
            select.setInt(2, limit);
            List<Notification> notifications = new ArrayList<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    notifications.add(new Notification(rows.getString(1), rows.getString(2), rows.getString(3),
                            rows.getObject(4, OffsetDateTime.class).toString()));
                }
            }
            return notifications;
        }
    }
}
