package dev.fencedqueue.bulk;

import java.util.Optional;

import dev.fencedqueue.worker.JobContext;

/**
 * A job type that walks its targets in chunks from a cursor and applies each chunk exactly once into a sink (such as
 * the notification fan-out): {@link PostgresChunkedJob} writes a chunk in a PostgreSQL transaction,
 * {@link RedisChunkedJob} in one Lua script. The job only reads and writes; {@link ChunkedProcessor} does the rest:
 * before each chunk it checks the abort flag and the throttle; it commits the chunk's writes with the cursor advance
 * under the fencing check; it reports progress as fenced events, paces the chunks, and holds the job's single-flight
 * key.
 *
 * <p>Threads: the methods declared here must not block (they run on the event loop).
 *
 * @param <I> one target (for a fan-out: a subscriber id)
 */
public interface ChunkedJob<I> {

    /** @return the queue whose jobs this type runs */
    String queue();

    /**
     * @return the class of this job type's data, checked when such a job is added over the HTTP API (see
     *         {@link dev.fencedqueue.worker.JobProcessor#dataType()}); empty (the default) for none
     */
    default Optional<Class<?>> dataType() {
        return Optional.empty();
    }

    /**
     * @param job the attempt, never {@code null}
     * @return how the job runs (chunk size, initial throttle, single-flight key), from its data
     * @throws dev.fencedqueue.worker.UnrecoverableJobException when the data is unusable
     */
    ChunkPlan plan(JobContext job);

    /**
     * @param item an item of a chunk
     * @return the cursor position right after it; positions grow in read order
     */
    String cursorAfter(I item);
}
