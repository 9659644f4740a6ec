package dev.fencedqueue.sse;

import io.vertx.core.Context;

/**
 * One job's events on an SSE connection, as the tailer hands them over: the job's own response
 * ({@link SseSubscriber}) or one job of a flow's response ({@link FlowSubscriber.Member}). Live events that arrive
 * before the job's replay was handed over wait in {@link #early} (past {@link SseOptions#bufferLimit()} of them the
 * reader is disconnected as slow); after it, each goes through the job's {@link #view}. Every method runs on the
 * event loop of the connection ({@link #context()}).
 */
abstract class JobStreamSubscriber implements TailSubscriber, JobStreamView.Sink {

    /** The response the job's events are written to, shared with the flow's other jobs for a flow. */
    protected final SseConnection connection;
    /** Live events handed over before the replay. */
    protected final EarlyEvents early;
    /** The job's epochs, {@code reset}s and {@code resume}s, which calls this subscriber back as its sink. */
    protected final JobStreamView view;

    /**
     * @param connection the response the job's events are written to, must not be {@code null}
     * @param options how the response is written, must not be {@code null}
     */
    JobStreamSubscriber(SseConnection connection, SseOptions options) {
        this.connection = connection;
        this.early = new EarlyEvents(connection, options.bufferLimit());
        this.view = new JobStreamView(this, options.json());
    }

    /** @return the event loop context of the connection, where every method of this subscriber must run */
    @Override
    public Context context() {
        return connection.context();
    }

    /**
     * Holds the batch back while the replay has not been handed over, else shows each event ({@link #live}); does
     * nothing once the response has finished.
     *
     * @param batch live events of the job, in stream order, each after every event handed over before
     */
    @Override
    public final void deliver(Iterable<FramedEvent> batch) {
        if (connection.finished()) {
            return;
        }
        if (early.hold(batch)) {
            return;
        }
        for (FramedEvent live : batch) {
            live(live);
        }
    }

    /** Shows one live event of the job, after its replay, through its {@link #view}. */
    protected void live(FramedEvent event) {
        view.live(event);
    }

    /** Closes the connection (shutdown, or too slow a client); its client reconnects. */
    @Override
    public void disconnect() {
        connection.disconnect();
    }
}
