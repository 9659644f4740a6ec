package dev.fencedqueue.bulk;

/**
 * Where a chunked job stands: the position after its last committed chunk and what it committed so far.
 *
 * @param position the cursor: the position after the last committed item ({@code ""} before the first chunk)
 * @param chunksDone chunks committed
 * @param itemsDone items committed
 */
public record Cursor(String position, long chunksDone, long itemsDone) {

    /** Where a job that committed nothing stands. */
    public static final Cursor START = new Cursor("", 0, 0);

    /**
     * @param to the position after the chunk
     * @param items the chunk's items
     * @return the cursor after one more committed chunk
     */
    public Cursor advance(String to, int items) {
        return new Cursor(to, chunksDone + 1, itemsDone + items);
    }
}
