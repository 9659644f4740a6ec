package dev.fencedqueue.bulk;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import dev.fencedqueue.postgres.Database;
import dev.fencedqueue.worker.JobContext;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The fence where the bulk jobs' writes land: each chunked job's row of {@code bulk_cursor} holds its cursor and
 * the fencing token of the epoch that last claimed it (Kleppmann's fencing token, checked by the storage itself).
 * An epoch first claims the row, raising its token, so that an older epoch's chunk can no longer commit; then
 * each of its chunks is read, advances the cursor and is written in one transaction that updates the row only
 * while the token is not newer than its own and the cursor is where the chunk started. Zero rows updated
 * means a newer epoch (or another chunk) owns the job: the whole chunk rolls back. Every method blocks (JDBC).
 */
@ApplicationScoped
public class PostgresCursors {

    private static final String CLAIM = "INSERT INTO bulk_cursor (job_id, cursor, fencing_token, attempt) "
            + "VALUES (?, '', ?, ?) ON CONFLICT (job_id) DO UPDATE SET fencing_token = EXCLUDED.fencing_token, "
            + "attempt = EXCLUDED.attempt, updated_at = now() WHERE bulk_cursor.fencing_token <= EXCLUDED.fencing_token "
            + "RETURNING cursor, chunks_done, items_done";
    /** Under the token held, only the attempt that claimed the row advances it (a row claimed before V2 has none). */
    private static final String ADVANCE = "UPDATE bulk_cursor SET cursor = ?, fencing_token = ?, attempt = ?, "
            + "chunks_done = chunks_done + 1, items_done = items_done + ?, updated_at = now() "
            + "WHERE job_id = ? AND (fencing_token < ? OR (fencing_token = ? AND (attempt IS NULL OR attempt = ?))) "
            + "AND cursor = ?";
    private static final String READ = "SELECT cursor, chunks_done, items_done FROM bulk_cursor WHERE job_id = ?";

    private final Database database;

    public PostgresCursors(Database database) {
        this.database = database;
    }

    /**
     * Claims a job's cursor for an epoch: creates the row at the start, or raises its fencing token to this
     * epoch's, unless a newer epoch holds it.
     *
     * @param jobId the job
     * @param fencingToken the epoch's fencing token
     * @param attemptId the attempt's id ({@link JobContext#attemptId()}), recorded with the token: under that token
     *        only this attempt advances the cursor
     * @param guard where the connection is registered while in use, so that a cancellation can abort it
     * @return the committed cursor, or empty when a newer epoch holds the row (the caller is a zombie)
     * @throws SQLException when the database fails
     */
    public Optional<Cursor> claim(String jobId, long fencingToken, String attemptId, ConnectionGuard guard)
            throws SQLException {
        try (Connection connection = guard.track(database.connection());
                PreparedStatement claim = connection.prepareStatement(CLAIM)) {
            claim.setString(1, jobId);
            claim.setLong(2, fencingToken);
            claim.setString(3, attemptId);
            try (ResultSet row = claim.executeQuery()) {
                return row.next() ? Optional.of(new Cursor(row.getString(1), row.getLong(2), row.getLong(3)))
                        : Optional.empty();
            }
        } finally {
            guard.release();
        }
    }

    /**
     * Runs one chunk in one transaction: reads it after {@code from}, advances the cursor past it under the epoch's
     * fencing token, and writes it. Nothing is written unless all of it commits.
     *
     * @param jobId the job
     * @param fencingToken the epoch's fencing token
     * @param from the committed cursor the chunk starts from
     * @param size the most items to read
     * @param job reads and writes the chunk
     * @param context the attempt, for {@code job}
     * @param proceed asked right before the commit (it may wait, for example for the abort flag read meanwhile);
     *        {@code false} rolls the chunk back
     * @param guard where the connection is registered while in use, so that a cancellation can abort it
     * @param <I> one item
     * @return what the transaction did: committed a chunk, found none left, was refused by the fence (a newer
     *         epoch, or another chunk, moved the cursor) or stopped by {@code proceed}; in the last two cases
     *         nothing was written
     * @throws SQLException when the database fails (the transaction is rolled back)
     * @throws Exception what {@code proceed} throws (the transaction is rolled back)
     */
    public <I> ChunkOutcome<I> nextChunk(String jobId, long fencingToken, Cursor from, int size, PostgresChunkedJob<I> job,
            JobContext context, Callable<Boolean> proceed, ConnectionGuard guard) throws Exception {
        try (Connection connection = guard.track(database.connection())) {
            connection.setAutoCommit(false);
            try {
                List<I> items = job.read(connection, context, from.position(), size);
                if (items.isEmpty()) {
                    connection.rollback();
                    return ChunkOutcome.done();
                }
                String to = job.cursorAfter(items.get(items.size() - 1));
                if (!advance(connection, jobId, fencingToken, context.attemptId(), from, to, items.size())) {
                    connection.rollback();
                    return ChunkOutcome.fenced(items, to);
                }
                long rows = job.write(connection, context, items);
                if (!proceed.call()) {
                    connection.rollback();
                    return ChunkOutcome.stopped(items, to);
                }
                connection.commit();
                return ChunkOutcome.committed(items, to, rows);
            } catch (Exception e) {
                rollbackQuietly(connection, e);
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } finally {
            guard.release();
        }
    }

    /**
     * Runs a read on a connection of the runtime's.
     *
     * @param query the read
     * @param guard where the connection is registered while in use
     * @param <T> the result
     * @return the read's result
     * @throws SQLException when the database fails
     */
    public <T> T query(SqlQuery<T> query, ConnectionGuard guard) throws SQLException {
        try (Connection connection = guard.track(database.connection())) {
            return query.run(connection);
        } finally {
            guard.release();
        }
    }

    /** A read on a connection. */
    @FunctionalInterface
    public interface SqlQuery<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * @param jobId the job
     * @return its committed cursor, or empty when the job never claimed one
     * @throws SQLException when the database fails
     */
    public Optional<Cursor> read(String jobId) throws SQLException {
        try (Connection connection = database.connection(); PreparedStatement read = connection.prepareStatement(READ)) {
            read.setString(1, jobId);
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? Optional.of(new Cursor(row.getString(1), row.getLong(2), row.getLong(3)))
                        : Optional.empty();
            }
        }
    }

    /**
     * The fenced cursor advance, first in the chunk's transaction: it also locks the row, so that a concurrent
     * epoch's chunk waits for this one and then finds the cursor moved.
     */
    private static boolean advance(Connection connection, String jobId, long fencingToken, String attemptId,
            Cursor from, String to, int items) throws SQLException {
        try (PreparedStatement advance = connection.prepareStatement(ADVANCE)) {
            advance.setString(1, to);
            advance.setLong(2, fencingToken);
            advance.setString(3, attemptId);
            advance.setLong(4, items);
            advance.setString(5, jobId);
            advance.setLong(6, fencingToken);
            advance.setLong(7, fencingToken);
            advance.setString(8, attemptId);
            advance.setString(9, from.position());
            return advance.executeUpdate() == 1;
        }
    }

    private static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
