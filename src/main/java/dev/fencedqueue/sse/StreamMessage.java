package dev.fencedqueue.sse;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventData;

/**
 * One message of a job's SSE stream (WHATWG HTML, "Server-sent events").
 *
 * @param id the {@code id:} field (a stream entry id), or {@code null} for none (resets and keep-alives,
 *        so that a reconnecting client resumes after the last real event)
 * @param event the {@code event:} field: the event type, or {@code reset}; {@code null} for a keep-alive
 * @param data the {@code data:} field (JSON), or {@code null} for a keep-alive
 * @param comment a comment line, for keep-alives; {@code null} otherwise
 */
public record StreamMessage(String id, String event, String data, String comment) {

    /** The keep-alive comment sent while a stream is idle. */
    public static final StreamMessage KEEP_ALIVE = new StreamMessage(null, null, null, "keep-alive");

    /** @return the message for a stored event */
    public static StreamMessage of(JobEvent event) {
        return new StreamMessage(event.id(), event.type(), event.data(), null);
    }

    /** @return the {@code reset} message announcing that epoch {@code fencingToken} took over the job */
    public static StreamMessage reset(long fencingToken, long previousToken) {
        return new StreamMessage(null, "reset", JobEventData.reset(fencingToken, previousToken), null);
    }

    /** @return whether this is a keep-alive comment */
    public boolean isKeepAlive() {
        return comment != null;
    }
}
