package dev.fencedqueue.sse;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The live events of one job that reach a reader before the job's replay was written: they wait here, in stream order,
 * until {@link #release()}; past the connection's buffer limit ({@link SseOptions#bufferLimit()}) of them the reader is
 * disconnected as slow, and its client resumes with {@code Last-Event-ID}. Used on the connection's event loop only.
 */
final class EarlyEvents {

    private final SseConnection connection;
    private final int limit;
    /** What arrived so far; {@code null} once released. */
    private ArrayDeque<FramedEvent> waiting = new ArrayDeque<>();

    /**
     * @param connection the reader's connection, disconnected when too many wait
     * @param limit the events that may wait before that
     */
    EarlyEvents(SseConnection connection, int limit) {
        this.connection = connection;
        this.limit = limit;
    }

    /** @return whether events are still held back: the replay has not been handed over yet */
    boolean holding() {
        return waiting != null;
    }

    /**
     * Holds live events back while the replay has not been handed over.
     *
     * @param batch live events of the job, in stream order
     * @return {@code true} when they were held back (the reader may have been disconnected for it), {@code false} after
     *         {@link #release()}: then the caller shows them
     */
    boolean hold(Iterable<FramedEvent> batch) {
        if (waiting == null) {
            return false;
        }
        batch.forEach(waiting::add);
        if (waiting.size() > limit) {
            connection.disconnectSlow(waiting.size());
        }
        return true;
    }

    /**
     * Stops holding events back; later batches go to the caller ({@link #hold} answers {@code false}).
     *
     * @return what was held back, in stream order; empty when nothing was, or when released before
     */
    Iterable<FramedEvent> release() {
        ArrayDeque<FramedEvent> arrived = waiting;
        waiting = null;
        return arrived == null ? List.of() : arrived;
    }
}
