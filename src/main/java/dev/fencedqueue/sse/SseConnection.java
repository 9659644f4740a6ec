package dev.fencedqueue.sse;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.smallrye.common.vertx.VertxContext;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import org.jboss.logging.Logger;

/**
 * The transport of one SSE response, shared by a job's stream ({@link SseSubscriber}) and a flow's
 * ({@link FlowSubscriber}): its head (status 200, {@code text/event-stream}, no caching or proxy buffering, and the
 * {@code retry:} field), the frames, a keep-alive comment after a quiet period, a bounded backlog, the disconnect of a
 * slow reader, and the end.
 *
 * <p>Frames the connection cannot take yet (more than {@code writeQueueMaxSize} bytes unsent) wait in a backlog,
 * written as the connection drains; past {@code bufferLimit} frames waiting (those of a replay aside, {@link #replayed})
 * the reader is disconnected, and so is one whose connection has taken nothing for a keep-alive period while frames
 * wait: its client resumes with {@code Last-Event-ID} (the SSE specification's reconnection), and nobody waits for
 * it. Every method runs on the event loop of the response's connection ({@link #context()}), so that the writes need
 * no hop and no lock.
 */
final class SseConnection {

    private static final Logger LOG = Logger.getLogger(SseConnection.class);

    private final HttpServerResponse response;
    private final Context context;
    private final int bufferLimit;
    private final Buffer retry;
    private final Runnable onSlow;
    private final List<Runnable> onFinish = new ArrayList<>();
    private StreamSpan span = StreamSpan.NONE;
    /** Frames waiting for the connection to drain; {@code null} while it takes writes. */
    private ArrayDeque<Buffer> backlog;
    /** Frames of a replay still in the backlog: they do not count against the buffer limit. */
    private int replayWaiting;
    /** While a replay is written, the backlog grows without a disconnect. */
    private boolean replaying;
    private boolean headWritten;
    private boolean ending;
    private boolean finished;
    /** When a frame was last handed to the connection, {@link System#nanoTime()}. */
    private long lastSentNanos = System.nanoTime();

    /**
     * @param response the response, not yet written; this connection writes its status, headers and body
     * @param context the current Vert.x context: that of the request's connection
     * @param options its write queue, buffer limit, {@code retry:} block (sent after the head), and what a slow
     *        reader's disconnect calls
     */
    SseConnection(HttpServerResponse response, Context context, SseOptions options) {
        this.response = response;
        this.context = VertxContext.getRootContext(context);
        this.bufferLimit = options.bufferLimit();
        this.retry = options.retry();
        this.onSlow = options.onSlow();
        response.setWriteQueueMaxSize(options.writeQueueMaxSize());
        response.closeHandler(ignored -> finish());
    }

    /** @return the event loop context of the connection, where every method must run */
    Context context() {
        return context;
    }

    /** Runs {@code action} on {@link #context()}. */
    void execute(Runnable action) {
        context.runOnContext(ignored -> action.run());
    }

    /** @return whether the response ended or its connection closed */
    boolean finished() {
        return finished;
    }

    /** @param span the reader's span, ended with the stream (at once when it has ended) */
    void span(StreamSpan span) {
        this.span = span;
        if (finished) {
            span.end();
        }
    }

    /** @param action run once, on {@link #context()}, when the response ends or its connection closes; at once if so */
    void onFinish(Runnable action) {
        if (finished) {
            action.run();
        } else {
            onFinish.add(action);
        }
    }

    /** Sends the status, the headers and the {@code retry:} field, once. */
    void head() {
        if (!headWritten && !finished) {
            headWritten = true;
            response.setStatusCode(200).setChunked(true).putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream")
                    .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache").putHeader("X-Accel-Buffering", "no");
            send(retry);
        }
    }

    /** A replay starts: the frames it leaves waiting are not a sign of slowness (until {@link #replayed}). */
    void replaying() {
        replaying = true;
    }

    /** The replay is written: what of it still waits does not count against the buffer limit. */
    void replayed() {
        replaying = false;
        replayWaiting = backlog == null ? 0 : backlog.size();
    }

    /** Writes a frame after the head (written first when not yet): at once, or after the frames already waiting. */
    void write(Buffer frame) {
        if (finished) {
            return;
        }
        head();
        if (backlog == null && !response.writeQueueFull()) {
            send(frame);
            return;
        }
        if (backlog == null) {
            backlog = new ArrayDeque<>();
            response.drainHandler(ignored -> drain());
        }
        backlog.add(frame);
        if (!replaying && backlog.size() - replayWaiting > bufferLimit) {
            disconnectSlow(backlog.size());
        }
    }

    /**
     * Sends a keep-alive comment when nothing was sent for {@code idleNanos} (the head first, when not yet sent);
     * disconnects the reader when its connection has taken nothing for that long while frames wait.
     *
     * @param nowNanos {@link System#nanoTime()} now
     * @param idleNanos the keep-alive period, ns
     */
    void keepAlive(long nowNanos, long idleNanos) {
        if (finished || nowNanos - lastSentNanos < idleNanos) {
            return;
        }
        if (backlog != null) {
            disconnectSlow(backlog.size());
        } else if (!ending) {
            write(SseFrames.keepAlive());
        }
    }

    /**
     * Disconnects a reader that cannot keep up, which its client resumes from with {@code Last-Event-ID}.
     *
     * @param waiting the events or frames waiting, for the log
     */
    void disconnectSlow(int waiting) {
        LOG.debugf("disconnecting a slow SSE subscriber (%d waiting); it resumes with Last-Event-ID", waiting);
        onSlow.run();
        disconnect();
    }

    /**
     * Closes the connection (shutdown, a slow reader, a failure): {@code 503} before the head, a reset after it; either
     * way its client reconnects.
     */
    void disconnect() {
        if (!finished) {
            if (headWritten) {
                // reset(), not close(): on HTTP/2 it ends this stream only, not the connection's other streams; on
                // HTTP/1.1 it closes the connection, as a response that has not ended cannot be cut short otherwise.
                response.reset();
            } else {
                response.setStatusCode(503).end();
            }
            finish();
        }
    }

    /** Ends the response once the backlog is written (the head first, when not yet): the client reconnects and gets 204. */
    void end() {
        if (finished) {
            return;
        }
        head();
        ending = true;
        if (backlog == null) {
            response.end();
            finish();
        }
    }

    /** Ends the response with {@code 204 No Content}, before the head: the reader already had all of it. */
    void endEmpty() {
        if (!finished && !headWritten) {
            response.setStatusCode(204).end();
            finish();
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

    private void finish() {
        if (!finished) {
            finished = true;
            backlog = null;
            span.end();
            onFinish.forEach(Runnable::run);
            onFinish.clear();
        }
    }
}
