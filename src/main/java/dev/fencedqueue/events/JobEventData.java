package dev.fencedqueue.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * A job's event stream stores them in a compact form, which {@link StoredEvent} reads back as this shape.
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

    /**
     * @param fencingToken the epoch that continues the job
     * @param workerId the worker that runs it, must not be {@code null}
     * @param attempt the attempt number of the run (1 for the first)
     * @param resumeFrom the run's resume point: the id of the last event of earlier runs it continues after
     * @param reason why the run continues: {@code takeover} (a worker was lost, stopped or handed the job back),
     *        {@code retry} (a failed attempt's retry, an operator's retry or resume), {@code children} (a parent goes
     *        on after its children), as Redis recorded it when the job went back to wait; {@code null} leaves the
     *        field out (a job sent back before the field existed)
     * @return the data of a {@code resume} (a new object), the event with which a run that continues the job's committed events
     *         announces itself (instead of the {@code reset} a reader gets before a run that starts over)
     */
    public static ObjectNode resume(long fencingToken, String workerId, int attempt, String resumeFrom, String reason) {
        ObjectNode data = of("resume", fencingToken, workerId).put("attempt", attempt).put("resumeFrom", resumeFrom);
        if (reason != null) {
            data.put("reason", reason);
        }
        return data;
    }

    /**
     * @param text JSON text, must not be {@code null}
     * @param json the application's object mapper, which parses it, must not be {@code null}
     * @return it parsed
     * @throws IllegalArgumentException when it is not JSON
     */
    static JsonNode parse(String text, ObjectMapper json) {
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("an event's data is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * @param text JSON text of an object, must not be {@code null}
     * @param json the application's object mapper, which parses it, must not be {@code null}
     * @return it parsed
     * @throws IllegalArgumentException when it is not a JSON object
     */
    static ObjectNode object(String text, ObjectMapper json) {
        if (parse(text, json) instanceof ObjectNode object) {
            return object;
        }
        throw new IllegalArgumentException("an event's data is not a JSON object: " + text);
    }

    /**
     * @param data an event's data (JSON text, an object)
     * @param jobId the job whose stream holds the event
     * @param eventId the event's entry id in that stream, or {@code null} (a {@code reset})
     * @param json the application's object mapper, which parses {@code data}, must not be {@code null}
     * @return the data as a flow's stream carries it (the flow SSE stream's): with {@code jobId} and, when given,
     *         {@code eventId} added
     * @throws IllegalArgumentException when {@code data} is not a JSON object
     */
    public static String inFlow(String data, String jobId, String eventId, ObjectMapper json) {
        ObjectNode object = object(data, json);
        object.put("jobId", jobId);
        if (eventId != null) {
            object.put("eventId", eventId);
        }
        return object.toString();
    }

    /**
     * @param data the data of a {@code resume} event (JSON text), must not be {@code null}
     * @param json the application's object mapper, which parses it, must not be {@code null}
     * @return its {@code resumeFrom}, or {@code null} when it has none
     * @throws IllegalArgumentException when {@code data} is not JSON
     */
    public static String resumeFrom(String data, ObjectMapper json) {
        try {
            JsonNode from = json.readTree(data).get("resumeFrom");
            return from == null || !from.isTextual() ? null : from.asText();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a resume event's data is not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
