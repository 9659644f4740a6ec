package dev.fencedqueue.bulk;

import java.util.List;

import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Uni;

/**
 * A {@link ChunkedJob} whose sink is Redis, for users without a database: each chunk's writes, the cursor
 * advance and the fencing check run in one Lua script ({@link RedisCursors#commit}), so the chunk lands exactly
 * once or not at all. The job's cursor lives in a hash at {@link #cursorKey}; every key a chunk writes must
 * share that key's hash tag (one Redis Cluster slot).
 *
 * <p>Threads: every method runs on the event loop and must not block; reads return a {@code Uni}.
 *
 * @param <I> one target (for a fan-out: a subscriber id)
 */
public interface RedisChunkedJob<I> extends ChunkedJob<I> {

    /**
     * @param job the attempt
     * @return the key of the job's cursor hash ({@code cursor}, {@code fencingToken}, {@code chunksDone},
     *         {@code itemsDone}); its hash tag is the one every written key must have
     */
    String cursorKey(JobContext job);

    /**
     * Counts the job's targets, once per attempt, for its progress.
     *
     * @param redis the service's shared Redis connection
     * @param job the attempt
     * @return how many items the job has in all, or {@code -1} when unknown
     */
    Uni<Long> total(SharedConnection redis, JobContext job);

    /**
     * Reads the next chunk. The read is not part of the commit: the items must stay readable in cursor order
     * (items added behind the cursor meanwhile are the job's to skip, as in a PostgreSQL read committed chunk).
     *
     * @param redis the service's shared Redis connection
     * @param job the attempt
     * @param cursor the position after the last committed item ({@code ""} before the first)
     * @param size the most items to return
     * @return the items after {@code cursor}, in cursor order; empty when none are left (the job is done)
     */
    Uni<List<I>> read(SharedConnection redis, JobContext job, String cursor, int size);

    /**
     * Records one chunk's writes; the runtime applies them only together with the cursor advance, and only while
     * the job's fencing token is current.
     *
     * @param writes where to record them (keys in the cursor key's hash slot)
     * @param job the attempt
     * @param chunk the chunk's items, not empty
     * @throws IllegalArgumentException from {@code writes}, for a key outside the slot or a bad argument (the
     *         attempt fails)
     */
    void write(RedisChunkWrites writes, JobContext job, List<I> chunk);
}
