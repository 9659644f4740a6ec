package dev.fencedqueue.bulk;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import dev.fencedqueue.worker.JobContext;

/**
 * A job type that walks its targets in chunks from a cursor and applies each chunk in one PostgreSQL
 * transaction (seed 004's bulk job, made exactly-once). It only reads and writes; {@link ChunkedProcessor}
 * does the rest: before each chunk it checks the abort flag and the throttle; it reads the chunk, advances the
 * cursor under the fencing check and writes the chunk in one transaction; it reports progress as fenced events,
 * paces the chunks, and holds the job's single-flight key.
 *
 * <p>Threads: {@link #plan} and {@link #cursorAfter} must not block (they run on the event loop);
 * {@link #total}, {@link #read} and {@link #write} block (JDBC) and run on a worker or virtual thread, on a
 * connection the runtime opened (do not commit, roll back or close it).
 *
 * @param <I> one target (for a fan-out: a subscriber id)
 */
public interface ChunkedJob<I> {

    /** @return the queue whose jobs this type runs */
    String queue();

    /**
     * @param job the attempt, never {@code null}
     * @return how the job runs (chunk size, initial throttle, single-flight key), from its data
     * @throws dev.fencedqueue.worker.UnrecoverableJobException when the data is unusable
     */
    ChunkPlan plan(JobContext job);

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
     * @param item an item of a chunk
     * @return the cursor position right after it; positions grow in read order
     */
    String cursorAfter(I item);

    /**
     * Writes one chunk's effects inside the sink's transaction; the runtime commits them only together with the
     * cursor advance, and only while the job's fencing token is current.
     *
     * @param transaction the open transaction (auto-commit off); do not commit, roll back or close it
     * @param job the attempt
     * @param chunk the chunk's items, not empty
     * @throws SQLException to roll the chunk back (the attempt fails and is retried from the committed cursor)
     */
    void write(Connection transaction, JobContext job, List<I> chunk) throws SQLException;
}
