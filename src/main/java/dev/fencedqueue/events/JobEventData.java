package dev.fencedqueue.events;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;

/**
 * The one shape of a job event's data, the JSON object that a job's stream entry holds and an SSE {@code data:} line
 * carries: {@code status} (the event type), {@code fencingToken} (the epoch that wrote it, a number), {@code workerId}
 * (the worker that wrote it, when one did), then the event's own fields ({@code percent} and {@code message} for
 * progress, {@code result} for completed, {@code reason} for failed and aborted, ...). Every event Java writes or
 * announces is shaped here; the scripts that write events of their own ({@code started}, and the {@code failed} or
 * {@code aborted} of a job that ends inside Redis) shape them with the include {@code jobEventData.lua}, the same way.
 */
public final class JobEventData {

    private JobEventData() {
    }

    /**
     * Starts an event's data; the caller adds the event's own fields.
     *
     * @param status the event type, must not be {@code null}
     * @param fencingToken the epoch that writes it
     * @param workerId the worker that writes it, or {@code null} when none does (a reader's {@code reset})
     * @return a new object with {@code status}, {@code fencingToken} and, when given, {@code workerId}
     */
    public static ObjectNode of(String status, long fencingToken, String workerId) {
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("status", status).put("fencingToken", fencingToken);
        if (workerId != null) {
            data.put("workerId", workerId);
        }
        return data;
    }

    /**
     * @param fencingToken the epoch that completed the job
     * @param workerId the worker that ran it, must not be {@code null}
     * @param result the job's return value, as JSON text (not parsed again), must not be {@code null}
     * @return the data of a {@code completed} event, as JSON text
     */
    public static String completed(long fencingToken, String workerId, String result) {
        return of("completed", fencingToken, workerId).putRawValue("result", new RawValue(result)).toString();
    }

    /**
     * @param fencingToken the epoch that took the job over
     * @param previousToken the epoch whose events a reader saw before
     * @return the data of a {@code reset}, the event that tells a reader a newer run took over and starts over
     */
    public static String reset(long fencingToken, long previousToken) {
        return of("reset", fencingToken, null).put("previousFencingToken", previousToken)
                .put("message", "a newer run took over the job").toString();
    }
}
