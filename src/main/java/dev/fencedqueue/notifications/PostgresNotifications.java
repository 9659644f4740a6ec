package dev.fencedqueue.notifications;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

import dev.fencedqueue.BlockingInvocation;
import dev.fencedqueue.bulk.Cursor;
import dev.fencedqueue.bulk.PostgresCursors;
import dev.fencedqueue.postgres.Database;
import io.smallrye.mutiny.Uni;

/**
 * The PostgreSQL notification store: tables {@code channel_subscriber} and {@code notification} (Flyway
 * migration V1), cursors in {@code bulk_cursor}. Every call runs its JDBC on {@code blocking}.
 */
public final class PostgresNotifications implements NotificationStore {

    private static final String ADD = "INSERT INTO channel_subscriber (channel, subscriber_id) "
            + "SELECT ?, id FROM unnest(?::text[]) AS id ON CONFLICT DO NOTHING";
    private static final String HAS_SUBSCRIBERS = "SELECT EXISTS (SELECT 1 FROM channel_subscriber WHERE channel = ?)";
    private static final String NOTIFICATIONS = "SELECT channel, job_id, message, created_at FROM notification "
            + "WHERE subscriber_id = ? ORDER BY id DESC LIMIT ?";

    private final Database database;
    private final PostgresCursors cursors;
    private final ExecutorService blocking;

    /**
     * @param blocking where the JDBC calls run, never an event loop
     */
    public PostgresNotifications(Database database, PostgresCursors cursors, ExecutorService blocking) {
        this.database = database;
        this.cursors = cursors;
        this.blocking = blocking;
    }

    @Override
    public Uni<Integer> add(String channel, List<String> subscriberIds) {
        return BlockingInvocation.call(() -> {
            try (Connection connection = database.connection();
                    PreparedStatement add = connection.prepareStatement(ADD)) {
                Array ids = connection.createArrayOf("text", subscriberIds.toArray());
                add.setString(1, channel);
                add.setArray(2, ids);
                return add.executeUpdate();
            }
        }, blocking);
    }

    @Override
    public Uni<Boolean> hasSubscribers(String channel) {
        return BlockingInvocation.call(() -> {
            try (Connection connection = database.connection();
                    PreparedStatement exists = connection.prepareStatement(HAS_SUBSCRIBERS)) {
                exists.setString(1, channel);
                try (ResultSet row = exists.executeQuery()) {
                    return row.next() && row.getBoolean(1);
                }
            }
        }, blocking);
    }

    @Override
    public Uni<List<Notification>> notifications(String subscriberId, int limit) {
        return BlockingInvocation.call(() -> read(subscriberId, limit), blocking);
    }

    @Override
    public Uni<Optional<Cursor>> committed(String jobId, String channel) {
        if (!database.isConfigured()) {
            return Uni.createFrom().item(Optional.empty());
        }
        return BlockingInvocation.call(() -> cursors.read(jobId), blocking);
    }

    private List<Notification> read(String subscriberId, int limit) throws SQLException {
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
