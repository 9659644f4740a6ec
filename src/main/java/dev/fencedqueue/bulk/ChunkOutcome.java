package dev.fencedqueue.bulk;

import java.util.List;

/**
 * What one chunk did in its sink ({@link ChunkSink.Attempt#nextChunk}).
 *
 * @param status committed, none left, or refused by the fence
 * @param items the chunk's items (empty when none were left)
 * @param to the cursor after the chunk ({@code null} when none were left)
 * @param rows the rows (Redis commands, for the Redis sink) the chunk wrote, the cursor advance not counted; 0 when
 *        it was not committed
 * @param <I> one item
 */
public record ChunkOutcome<I>(Status status, List<I> items, String to, long rows) {

    /** How the chunk ended. */
    public enum Status {
        /** The chunk and its cursor advance committed. */
        COMMITTED,
        /** No item was left after the cursor: the job is done. Nothing was written. */
        DONE,
        /** The fence refused the cursor advance (a newer epoch owns the job): the chunk rolled back whole. */
        FENCED,
        /** An operator asked the job to stop before the chunk committed: it rolled back whole. */
        STOPPED
    }

    static <I> ChunkOutcome<I> committed(List<I> items, String to, long rows) {
        return new ChunkOutcome<>(Status.COMMITTED, items, to, rows);
    }

    static <I> ChunkOutcome<I> done() {
        return new ChunkOutcome<>(Status.DONE, List.of(), null, 0);
    }

    static <I> ChunkOutcome<I> stopped(List<I> items, String to) {
        return new ChunkOutcome<>(Status.STOPPED, items, to, 0);
    }

    static <I> ChunkOutcome<I> fenced(List<I> items, String to) {
        return new ChunkOutcome<>(Status.FENCED, items, to, 0);
    }
}
