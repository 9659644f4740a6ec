package dev.fencedqueue.queue;

import java.util.Map;

/**
 * One entry of a queue's event stream.
 *
 * @param id the stream entry id
 * @param event the event: {@code waiting}, {@code delayed}, {@code active}, {@code progress},
 *        {@code completed}, {@code failed}, {@code aborted}, {@code stalled}, {@code removed},
 *        {@code paused}, {@code resumed}, {@code cleaned} or {@code drained}
 * @param jobId the job it is about, or {@code ""} for queue-wide events
 * @param fields the other fields ({@code prev}, {@code returnvalue}, {@code failedReason}, {@code data}, ...)
 */
public record QueueEvent(String id, String event, String jobId, Map<String, String> fields) {
}
