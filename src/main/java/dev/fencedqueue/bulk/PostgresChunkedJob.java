package dev.fencedqueue.bulk;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import dev.fencedqueue.worker.JobContext;

/**
 * A {@link ChunkedJob} whose sink is PostgreSQL: each chunk is read, advances the cursor under the fencing check
 * ({@link PostgresCursors}) and is written in one transaction.
 *
 * <p>Threads: {@link #total}, {@link #read} and {@link #write} block (JDBC) and run on a worker or virtual
 * thread, on a connection the runtime opened (do not commit, roll back or close it).
 *
 * @param <I> one target (for a fan-out: a subscriber id)
 */
public interface PostgresChunkedJob<I> extends ChunkedJob<I> {

    /**
     * Counts the job's targets, once per attempt, for its progress.
     *
     * @param connection a connection of the runtime's
     * @param job the attempt
     * @return how many items the job has in all, or {@code -1} when unknown
     * @throws SQLException when the count fails (the attempt fails and is retried)
     */
    long total(Connection connection, JobContext job) throws SQLException;

    /**
     * Reads the next chunk, inside the chunk's transaction (before its cursor advance and writes).
     *
     * @param transaction the chunk's open transaction
     * @param job the attempt
     * @param cursor the position after the last committed item ({@code ""} before the first)
     * @param size the most items to return
     * @return the items after {@code cursor}, in cursor order; empty when there are none left (the job is done)
     * @throws SQLException when the read fails (the attempt fails and is retried from the committed cursor)
     */
    List<I> read(Connection transaction, JobContext job, String cursor, int size) throws SQLException;

    /**
     * Writes one chunk's effects inside the sink's transaction; the runtime commits them only together with the
     * cursor advance, and only while the job's fencing token is current.
     *
     * @param transaction the open transaction (auto-commit off); do not commit, roll back or close it
     * @param job the attempt
     * @param chunk the chunk's items, not empty
     * @return the rows written (the sum of the statements' update counts), for the chunk's span
     * @throws SQLException to roll the chunk back (the attempt fails and is retried from the committed cursor)
     */
    long write(Connection transaction, JobContext job, List<I> chunk) throws SQLException;
}
