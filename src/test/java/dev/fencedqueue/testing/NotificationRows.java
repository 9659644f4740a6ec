package dev.fencedqueue.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import dev.fencedqueue.dev.EmbeddedPostgresServer;

/**
 * What the notification tests read from (and write into) the test's PostgreSQL over plain JDBC, to check
 * exactly-once delivery: rows per subscriber in the notification center and the push outbox, with nothing in the
 * schema that would hide a duplicate. Injected by {@link PostgresTestResource}, so that it also serves tests of
 * the packaged application.
 */
public final class NotificationRows implements FanOutRows {

    private final String url;
    private final String user;
    private final String password;

    NotificationRows(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** @return the rows of an embedded server's database */
    public static NotificationRows on(EmbeddedPostgresServer server) {
        return on(server.jdbcUrl());
    }

    /** @return the rows of the database at {@code jdbcUrl}, as the embedded servers' user */
    public static NotificationRows on(String jdbcUrl) {
        return new NotificationRows(jdbcUrl, EmbeddedPostgresServer.USER, EmbeddedPostgresServer.PASSWORD);
    }

    /**
     * Creates a channel with {@code count} subscribers ({@code s-00000} ... in cursor order).
     *
     * @return the channel's name, fresh
     */
    @Override
    public String channelWith(int count) {
        String channel = "ch-" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = connection(); PreparedStatement add = connection.prepareStatement(
                "INSERT INTO channel_subscriber (channel, subscriber_id) SELECT ?, 's-' || lpad(n::text, 6, '0') "
                        + "FROM generate_series(0, ? - 1) AS n")) {
            add.setString(1, channel);
            add.setInt(2, count);
            add.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return channel;
    }

    /** @return the job's rows in {@code notification} */
    @Override
    public long notifications(String channel, String jobId) {
        return rows("notification", jobId);
    }

    /** @return the job's rows in {@code push_outbox} */
    @Override
    public long outbox(String channel, String jobId) {
        return rows("push_outbox", jobId);
    }

    /**
     * @return subscribers of the channel without exactly one row of the job in {@code notification} and in
     *         {@code push_outbox}, in all
     */
    @Override
    public long notExactlyOnce(String channel, String jobId) {
        return notExactlyOnce("notification", channel, jobId) + notExactlyOnce("push_outbox", channel, jobId);
    }

    /** @return rows of a job in a table ({@code notification} or {@code push_outbox}) */
    public long rows(String table, String jobId) {
        return single("SELECT count(*) FROM " + table + " WHERE job_id = ?", jobId);
    }

    /**
     * @return subscribers of the job's channel that got anything but exactly one row in the table. Joined by hash, never
     *         by nested loop: with statistics from before the test's rows (autovacuum had not analysed them yet) the
     *         planner once chose a nested loop that ran the aggregate of the job's rows again for each subscriber, and
     *         the query ran for more than ten minutes (2026-11-29)
     */
    public long notExactlyOnce(String table, String channel, String jobId) {
        return single("SELECT count(*) FROM channel_subscriber s LEFT JOIN (SELECT subscriber_id, count(*) AS n FROM "
                + table + " WHERE job_id = ? GROUP BY subscriber_id) r ON r.subscriber_id = s.subscriber_id "
                + "WHERE s.channel = ? AND coalesce(r.n, 0) <> 1", true, jobId, channel);
    }

    /** @return the committed cursor of a job, or {@code null} */
    public String cursor(String jobId) {
        return text("SELECT cursor FROM bulk_cursor WHERE job_id = ?", jobId);
    }

    /** @return the fencing token that last claimed the job's cursor row, or -1 */
    public long cursorToken(String jobId) {
        String token = text("SELECT fencing_token::text FROM bulk_cursor WHERE job_id = ?", jobId);
        return token == null ? -1 : Long.parseLong(token);
    }

    /** @return the newest creation time of the job's notifications, ms since the epoch, or 0 */
    public long lastWrite(String jobId) {
        return single("SELECT coalesce(max((extract(epoch FROM created_at) * 1000)::bigint), 0) FROM notification "
                + "WHERE job_id = ?", jobId);
    }

    /** @return the oldest creation time of the job's notifications, ms since the epoch, or 0 */
    public long firstWrite(String jobId) {
        return single("SELECT coalesce(min((extract(epoch FROM created_at) * 1000)::bigint), 0) FROM notification "
                + "WHERE job_id = ?", jobId);
    }

    private long single(String sql, String... args) {
        return single(sql, false, args);
    }

    private long single(String sql, boolean noNestedLoop, String... args) {
        String value = text(sql, noNestedLoop, args);
        return value == null ? 0 : Long.parseLong(value);
    }

    private String text(String sql, String... args) {
        return text(sql, false, args);
    }

    private String text(String sql, boolean noNestedLoop, String... args) {
        try (Connection connection = connection(); PreparedStatement query = connection.prepareStatement(sql)) {
            if (noNestedLoop) {
                try (Statement setting = connection.createStatement()) {
                    setting.execute("SET enable_nestloop = off");
                }
            }
            for (int i = 0; i < args.length; i++) {
                query.setString(i + 1, args[i]);
            }
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private Connection connection() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }
}
