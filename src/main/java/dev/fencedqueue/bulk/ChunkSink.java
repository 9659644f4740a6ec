package dev.fencedqueue.bulk;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Uni;

/**
 * Where a chunked job's chunks land together with its fenced cursor: {@link PostgresSink} (one transaction per
 * chunk) or {@link RedisSink} (one Lua script per chunk). Both give the same contract: a chunk's writes, the
 * cursor advance and the fencing check commit together or not at all, so each chunk is applied exactly once.
 *
 * @param <I> one target of the job
 */
public interface ChunkSink<I> {

    /**
     * @param context the attempt, never {@code null}
     * @return the sink's side of one attempt; its methods are called one after the other, never concurrently
     */
    Attempt<I> attempt(JobContext context);

    /** The sink's side of one attempt. Cancelling a returned {@code Uni} stops its step (a chunk rolls back). */
    interface Attempt<I> {

        /**
         * Claims the job's cursor for this attempt's epoch, so that no older epoch's chunk can commit any more.
         *
         * @return the committed cursor, or empty when a newer epoch holds it (this attempt is a zombie's)
         */
        Uni<Optional<Cursor>> claim();

        /** @return how many items the job has in all, or {@code -1} when unknown */
        Uni<Long> total();

        /**
         * Reads the chunk after {@code from} and commits it with the cursor advance under the fence, unless
         * {@code proceed} says no.
         *
         * @param from the committed cursor
         * @param size the most items in the chunk
         * @param proceed completes with {@code false} when the chunk must not commit (an operator's abort): read
         *        while the chunk is prepared, awaited before it commits
         * @return what happened: committed, none left, refused by the fence, or stopped (nothing written in the
         *         last two cases)
         */
        Uni<ChunkOutcome<I>> nextChunk(Cursor from, int size, CompletionStage<Boolean> proceed);
    }
}
