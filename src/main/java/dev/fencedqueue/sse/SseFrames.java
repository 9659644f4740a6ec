package dev.fencedqueue.sse;

import dev.fencedqueue.events.JobEvent;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;

/**
 * The bytes of a job stream's SSE messages, in the event stream format of the HTML Living Standard
 * ("Server-sent events", 9.2.5): {@code id:}, {@code event:}, one {@code data:} line per line of the data, a blank
 * line; a comment line for a keep-alive; a {@code retry:} field alone for the reconnection time. The one place that
 * shapes them.
 *
 * <p>A live event is framed once, into a direct buffer: the same bytes are written to every subscriber of its job
 * (Vert.x writes a duplicate of the buffer, so Netty neither copies it to a direct buffer per connection nor frees
 * it after one write).
 */
public final class SseFrames {

    /** The keep-alive comment sent while a stream is idle. */
    private static final String KEEP_ALIVE = ": keep-alive\n\n";

    private SseFrames() {
    }

    /** @return the frame of a stored event, for writing to many subscribers */
    static Buffer event(JobEvent event) {
        return shared(text(StreamMessage.of(event)));
    }

    /** @return the frame of one message (a keep-alive, a reset, an event of a replay) */
    static Buffer message(StreamMessage message) {
        return Buffer.buffer(text(message));
    }

    /**
     * @return the keep-alive comment, a new buffer each time: no buffer may live in a static field, which the native
     *         image would try to store in its heap (Netty's buffers are initialized at run time)
     */
    static Buffer keepAlive() {
        return Buffer.buffer(KEEP_ALIVE);
    }

    /**
     * @param retry the client's reconnection time, ms resolution
     * @return a block with the {@code retry:} field alone: it sets an {@code EventSource}'s reconnection time and
     *         dispatches no event
     */
    static Buffer retry(Duration retry) {
        return Buffer.buffer("retry: " + retry.toMillis() + "\n\n");
    }

    /** @return the message as the SSE text format: {@code id:} when set, {@code event:}, {@code data:} lines, blank line */
    static String text(StreamMessage message) {
        if (message.isKeepAlive()) {
            return ": " + message.comment() + "\n\n";
        }
        StringBuilder frame = new StringBuilder(32 + message.data().length());
        if (message.id() != null) {
            frame.append("id: ").append(message.id()).append('\n');
        }
        frame.append("event: ").append(message.event()).append('\n');
        // A line break inside the data would end the field: each line gets a data: field of its own, which the client
        // joins with \n again (CR LF, LF and CR are all line ends in the format).
        for (String line : message.data().split("\r\n|\r|\n", -1)) {
            frame.append("data: ").append(line).append('\n');
        }
        return frame.append('\n').toString();
    }

    private static Buffer shared(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        return Buffer.buffer(Unpooled.wrappedBuffer(direct));
    }
}
