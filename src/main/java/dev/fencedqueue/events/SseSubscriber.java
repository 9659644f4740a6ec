package dev.fencedqueue.events;

import java.util.ArrayDeque;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.Job;
import io.smallrye.common.vertx.VertxContext;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import org.jboss.logging.Logger;

/**
 * One SSE response following a job: its replay, then the live events the tailer hands it, through its
 * {@link EpochGate}. Every method runs on the event loop of the response's connection ({@link #context()}), so the
 * writes need no hop and no lock; the tailer hands live events over in batches, one task per event loop.
 *
 * <p>Memory is bounded: live events that arrive before the replay is written wait in a queue, and frames that the
 * connection cannot take (more than {@code writeQueueMaxSize} bytes unsent) wait in a backlog; past
 * {@code bufferLimit} events in either (the unsent part of the replay aside) the subscriber is disconnected, and its
 * client resumes with {@code Last-Event-ID}; so is one whose connection has taken nothing for a keep-alive period while
 * frames wait. A slow subscriber therefore never holds others back: nobody waits for it.
 */
final class SseSubscriber implements TailSubscriber, JobStreamView.Sink {

    private static final Logger LOG = Logger.getLogger(SseSubscriber.class);

    private final HttpServerResponse response;
    private final Context context;
    private final int bufferLimit;
    private final Runnable onSlow;
    private Runnable onFinish = () -> {
    };
    /** Live events handed over before {@link #start}; {@code null} after it. */
    private ArrayDeque<FramedEvent> early = new ArrayDeque<>();
    /** Frames waiting for the connection to drain; {@code null} while it takes writes. */
    private ArrayDeque<Buffer> backlog;
    /** Frames of the replay still in the backlog: they do not count against the buffer limit. */
    private int replayWaiting;
    private final JobStreamView view;
    private boolean ending;
    private boolean finished;
    private StreamSpan span = StreamSpan.NONE;
    /** When a frame was last handed to the connection. */
    private long lastSentNanos = System.nanoTime();

    /**
     * @param response the response, not yet written; this subscriber writes its status, headers and body
     * @param context the current Vert.x context: that of the request's connection
     * @param writeQueueMaxSize the bytes the connection may hold unsent before frames wait in the backlog
     * @param bufferLimit the events that may wait (before the start, or in the backlog) before a disconnect
     * @param onSlow called when the subscriber is disconnected for being slow
     * @param json the application's object mapper, which reads the events' data
     */
    SseSubscriber(HttpServerResponse response, Context context, int writeQueueMaxSize, int bufferLimit, Runnable onSlow,
            ObjectMapper json) {
        this.view = new JobStreamView(this, json);
        this.response = response;
        this.context = VertxContext.getRootContext(context);
        this.bufferLimit = bufferLimit;
        this.onSlow = onSlow;
        response.setWriteQueueMaxSize(writeQueueMaxSize);
        response.closeHandler(ignored -> finish());
    }

    /** @return the event loop context of the connection, where every method of this subscriber must run */
    @Override
    public Context context() {
        return context;
    }

    /** Runs {@code action} on {@link #context()}. */
    void execute(Runnable action) {
        context.runOnContext(ignored -> action.run());
    }

    /**
     * @param onFinish called once, on {@link #context()}, when the response ends or its connection closes; at once
     *        when that has already happened
     */
    void onFinish(Runnable onFinish) {
        if (finished) {
            onFinish.run();
        } else {
            this.onFinish = onFinish;
        }
    }

    /**
     * Sends the status, the headers, the {@code retry:} field and the replay, then whatever arrived live meanwhile.
     *
     * @param job the job, as read before the replay
     * @param clientEpoch the epoch of the client's {@code Last-Event-ID}, -1 when none or when the stream does not
     *        hold that entry (then, with a {@code resumeAfter}, the first event sent is preceded by a {@code reset})
     * @param resumeAfter the client's {@code Last-Event-ID}, or {@code null}
     * @param replay the job's stream after {@code resumeAfter}, in order
     * @param retry the {@code retry:} block
     * @param span the reader's span, ended with the stream
     */
    void start(Job job, long clientEpoch, String resumeAfter, List<JobEvent> replay, Buffer retry, StreamSpan span) {
        this.span = span;
        if (finished) {
            span.end();
            return;
        }
        span.resumedAfter(resumeAfter);
        response.setStatusCode(200).setChunked(true).putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream")
                .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache").putHeader("X-Accel-Buffering", "no");
        write(retry);
        if (!view.start(job, clientEpoch, resumeAfter, replay)) {
            return;
        }
        // What the connection has not taken of the replay waits in the backlog, but is not a sign of slowness yet.
        replayWaiting = backlog == null ? 0 : backlog.size();
        ArrayDeque<FramedEvent> arrived = early;
        early = null;
        if (!finished) {
            deliver(arrived);
        }
    }

    /** @param batch live events of the job, in stream order, each after every event handed over before */
    @Override
    public void deliver(Iterable<FramedEvent> batch) {
        if (finished) {
            return;
        }
        if (early != null) {
            batch.forEach(early::add);
            if (early.size() > bufferLimit) {
                disconnectSlow();
            }
            return;
        }
        for (FramedEvent live : batch) {
            view.live(live);
        }
    }

    /**
     * Sends a keep-alive comment when nothing was sent for {@code idleNanos}; disconnects the subscriber when its
     * connection has taken nothing for that long while frames wait (a client that stopped reading).
     */
    @Override
    public void keepAlive(long nowNanos, long idleNanos) {
        if (finished || early != null || nowNanos - lastSentNanos < idleNanos) {
            return;
        }
        if (backlog != null) {
            disconnectSlow();
        } else if (!ending) {
            send(SseFrames.keepAlive());
        }
    }

    /** Closes the connection (shutdown, or too slow a client); its client reconnects. */
    @Override
    public void disconnect() {
        if (!finished) {
            // reset(), not close(): on HTTP/2 it ends this stream only, not the connection's other streams; on
            // HTTP/1.1 it closes the connection, as a response that has not ended cannot be cut short otherwise.
            response.reset();
            finish();
        }
    }

    @Override
    public void event(JobEvent event, Buffer frame) {
        span.sent(event.type());
        write(frame != null ? frame : SseFrames.message(StreamMessage.of(event)));
    }

    @Override
    public void reset(StreamMessage reset) {
        span.reset();
        write(SseFrames.message(reset));
    }

    private void write(Buffer frame) {
        if (finished) {
            return;
        }
        if (backlog == null && !response.writeQueueFull()) {
            send(frame);
            return;
        }
        if (backlog == null) {
            backlog = new ArrayDeque<>();
            response.drainHandler(ignored -> drain());
        }
        backlog.add(frame);
        if (early == null && backlog.size() - replayWaiting > bufferLimit) {
            disconnectSlow();
        }
    }

    private void send(Buffer frame) {
        lastSentNanos = System.nanoTime();
        response.write(frame);
    }

    private void drain() {
        while (!finished && backlog != null && !backlog.isEmpty() && !response.writeQueueFull()) {
            send(backlog.poll());
            if (replayWaiting > 0) {
                replayWaiting--;
            }
        }
        if (backlog != null && backlog.isEmpty()) {
            backlog = null;
            response.drainHandler(null);
            if (ending) {
                end();
            }
        }
    }

    /** Ends the response once the backlog is written: an {@code EventSource} then reconnects and gets 204. */
    @Override
    public void end() {
        ending = true;
        if (backlog == null && !finished) {
            response.end();
            finish();
        }
    }

    private void disconnectSlow() {
        LOG.debugf("disconnecting a slow SSE subscriber (%d events waiting); it resumes with Last-Event-ID",
                early != null ? early.size() : backlog == null ? 0 : backlog.size());
        onSlow.run();
        disconnect();
    }

    private void finish() {
        if (!finished) {
            finished = true;
            early = null;
            backlog = null;
            span.end();
            onFinish.run();
        }
    }
}
