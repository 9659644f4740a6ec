package dev.fencedqueue.sse;

import dev.fencedqueue.events.JobEvent;

import io.vertx.core.buffer.Buffer;

/**
 * A live event and its SSE frame, built once by the tailer and shared by every subscriber of the job.
 *
 * @param event the stored event
 * @param frame its bytes ({@link SseFrames#event}), never modified
 */
record FramedEvent(JobEvent event, Buffer frame) {

    static FramedEvent of(JobEvent event) {
        return new FramedEvent(event, SseFrames.event(event));
    }
}
