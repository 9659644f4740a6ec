package dev.fencedqueue.sse;

import io.vertx.core.Context;

/**
 * A reader of one job's live events, registered with the job's {@link JobEventTailer}: an SSE response of one job
 * ({@link SseSubscriber}) or one job of a flow's stream ({@link FlowSubscriber}). The tailer calls every method on the
 * reader's {@link #context()}.
 */
interface TailSubscriber {

    /** @return the event loop context of the reader's connection, where every method must run */
    Context context();

    /** @param batch live events of the job, in stream order, each after every event handed over before */
    void deliver(Iterable<FramedEvent> batch);

    /**
     * Sends a keep-alive comment when nothing was sent for {@code idleNanos}; disconnects a reader whose connection
     * has taken nothing for that long while frames wait.
     *
     * @param nowNanos {@link System#nanoTime()} now
     * @param idleNanos the idle period, ns
     */
    void keepAlive(long nowNanos, long idleNanos);

    /** Closes the reader's connection (shutdown, or too slow a client); its client reconnects. */
    void disconnect();
}
