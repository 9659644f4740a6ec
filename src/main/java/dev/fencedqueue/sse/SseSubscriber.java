package dev.fencedqueue.sse;

import java.util.List;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.Job;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * One SSE response following a job: its replay, then the live events the tailer hands it, through its
 * {@link EpochGate}, written through its {@link SseConnection} (head, keep-alive, bounded backlog, slow-reader
 * disconnect, end). Every method runs on the event loop of the response's connection ({@link #context()}), so the
 * writes need no hop and no lock; the tailer hands live events over in batches, one task per event loop.
 *
 * <p>Memory is bounded: live events that arrive before the replay is written wait ({@link EarlyEvents}), past
 * {@link SseOptions#bufferLimit()} of them the subscriber is disconnected (and the connection bounds what waits after
 * it); its client resumes with {@code Last-Event-ID}. A slow subscriber therefore never holds others back: nobody waits
 * for it.
 */
final class SseSubscriber extends JobStreamSubscriber {

    private StreamSpan span = StreamSpan.NONE;

    /**
     * @param response the response, not yet written; this subscriber writes its status, headers and body
     * @param context the current Vert.x context: that of the request's connection
     * @param options how the response is written
     */
    SseSubscriber(HttpServerResponse response, Context context, SseOptions options) {
        super(new SseConnection(response, context, options), options);
        connection.onFinish(early::release);
    }

    /** Runs {@code action} on {@link #context()}. */
    void execute(Runnable action) {
        connection.execute(action);
    }

    /**
     * @param onFinish called once, on {@link #context()}, when the response ends or its connection closes; at once
     *        when that has already happened
     */
    void onFinish(Runnable onFinish) {
        connection.onFinish(onFinish);
    }

    /**
     * Sends the status, the headers, the {@code retry:} field and the replay, then whatever arrived live meanwhile.
     *
     * @param job the job, as read before the replay
     * @param clientEpoch the epoch of the client's {@code Last-Event-ID}, -1 when none or when the stream does not
     *        hold that entry (then, with a {@code resumeAfter}, the first event sent is preceded by a {@code reset})
     * @param resumeAfter the client's {@code Last-Event-ID}, or {@code null}
     * @param replay the job's stream after {@code resumeAfter}, in order
     * @param span the reader's span, ended with the stream
     */
    void start(Job job, long clientEpoch, String resumeAfter, List<JobEvent> replay, StreamSpan span) {
        this.span = span;
        connection.span(span);
        if (connection.finished()) {
            return;
        }
        span.resumedAfter(resumeAfter);
        connection.head();
        connection.replaying();
        boolean goesOn = view.start(job, clientEpoch, resumeAfter, replay);
        // What the connection has not taken of the replay waits in the backlog, but is not a sign of slowness yet.
        connection.replayed();
        if (!goesOn) {
            return;
        }
        Iterable<FramedEvent> arrived = early.release();
        if (!connection.finished()) {
            deliver(arrived);
        }
    }

    /**
     * Sends a keep-alive comment when nothing was sent for {@code idleNanos}; disconnects the subscriber when its
     * connection has taken nothing for that long while frames wait (a client that stopped reading). Nothing before
     * the replay is written.
     */
    @Override
    public void keepAlive(long nowNanos, long idleNanos) {
        if (!early.holding()) {
            connection.keepAlive(nowNanos, idleNanos);
        }
    }

    @Override
    public void event(JobEvent event, Buffer frame) {
        span.sent(event.type());
        connection.write(frame != null ? frame : SseFrames.message(StreamMessage.of(event)));
    }

    @Override
    public void reset(StreamMessage reset) {
        span.reset();
        connection.write(SseFrames.message(reset));
    }

    /** Ends the response once the backlog is written: an {@code EventSource} then reconnects and gets 204. */
    @Override
    public void end() {
        connection.end();
    }
}
