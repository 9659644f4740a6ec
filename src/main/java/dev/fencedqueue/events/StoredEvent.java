package dev.fencedqueue.events;

import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;

/**
 * The compact form in which a job's event stream stores an event, and the one place that turns it back into the
 * event's data ({@link JobEventData}'s shape, byte for byte). Every entry has the same four fields, so that Redis
 * stores their names once per node of the stream ({@code XADD} with the fields of the node's first entry):
 * <ul>
 * <li>{@code type}: the event type;</li>
 * <li>{@code token}: the fencing token of the epoch that wrote it;</li>
 * <li>{@code data}: the event's own fields as a JSON object, without {@code status} (the type) and
 * {@code fencingToken} (the token), which the entry holds already; or, for an <em>answer delta</em>, a JSON array of
 * its counters;</li>
 * <li>{@code text}: an answer delta's text, as is (no JSON escaping); {@code ""} for every other event.</li>
 * </ul>
 * An answer delta is a {@code progress} event of a streamed answer ({@link AnswerDelta}): its {@code percent},
 * {@code message}, {@code phase} follow from its counters and its {@code workerId} is the worker of its run (the job
 * hash's {@code worker:<token>}, written when the run was activated), so it stores its counters
 * {@code [completionTokens, maxTokens, sequenceNumber, reasoningDelta]} (trailing nulls left out) and its text. An
 * event is stored as an answer delta only when it reads back as exactly the same JSON; any other event is stored
 * whole. Entries written before this form (with {@code status} in their data, and no {@code text}) read back as
 * they were written.
 */
public final class StoredEvent {


    /**
     * One entry's values.
     *
     * @param type the event type
     * @param data the {@code data} field: a JSON object, or an answer delta's JSON array of counters
     * @param text the {@code text} field: an answer delta's text, else {@code ""}
     */
    public record Entry(String type, String data, String text) {

        /** @return whether this is an answer delta, whose reading needs the worker of its run */
        public boolean isAnswerDelta() {
            return data.startsWith("[");
        }
    }

    private StoredEvent() {
    }

    /**
     * @param type the event type, must not be {@code null}
     * @param fencingToken the epoch that writes it
     * @param runWorker the worker of the writing run, or {@code null} when no worker writes it
     * @param data the event's whole data ({@link JobEventData}'s shape), must not be {@code null}; not modified
     * @param json the application's object mapper, which reads an answer delta back to compare it, must not be
     *        {@code null}
     * @return how the stream stores it
     */
    public static Entry of(String type, long fencingToken, String runWorker, ObjectNode data, ObjectMapper json) {
        if (runWorker != null && "progress".equals(type)) {
            Entry delta = AnswerDelta.store(data, runWorker);
            if (delta != null && data.toString().equals(read(type, fencingToken, delta.data(), delta.text(),
                    runWorker, json))) {
                return delta;
            }
        }
        ObjectNode own = data.deepCopy();
        if (type.equals(own.path("status").textValue())) {
            own.remove("status");
        }
        if (own.path("fencingToken").isIntegralNumber() && own.path("fencingToken").longValue() == fencingToken) {
            own.remove("fencingToken");
        }
        return new Entry(type, own.toString(), "");
    }

    /**
     * @param workerId the worker that completes the job, must not be {@code null}
     * @param result the job's return value, JSON text (not parsed again), must not be {@code null}
     * @return the stored {@code data} of a {@code completed} event, which reads back as
     *         {@link JobEventData#completed}
     */
    public static String completed(String workerId, String result) {
        return JsonNodeFactory.instance.objectNode().put("workerId", workerId)
                .putRawValue("result", new RawValue(result)).toString();
    }

    /**
     * Reads an entry back as the event's data.
     *
     * @param type the entry's {@code type}, must not be {@code null}
     * @param fencingToken the entry's {@code token}
     * @param data the entry's {@code data} ({@code "{}"} when absent)
     * @param text the entry's {@code text} ({@code ""} when absent)
     * @param runWorker the worker of the run of {@code fencingToken}, needed only by an answer delta ({@code null}
     *        otherwise, or when not known: the data then has no {@code workerId})
     * @param json the application's object mapper, which parses {@code data}, must not be {@code null}
     * @return the event's data, as {@link JobEventData} shapes it
     * @throws IllegalArgumentException when the data is not JSON (an object, or an answer delta's array)
     */
    public static String read(String type, long fencingToken, String data, String text, String runWorker,
            ObjectMapper json) {
        if (data.startsWith("[")) {
            return AnswerDelta.read(fencingToken, counters(data, json), text, runWorker).toString();
        }
        // Its own fields after the envelope; an entry written whole before the compact form holds the envelope already,
        // and reads back as it was written (setAll keeps each field where of() put it).
        return JobEventData.of(type, fencingToken, null).setAll(JobEventData.object(data, json)).toString();
    }

    /**
     * @param fields an entry's fields, by name
     * @return the entry, with absent fields as their defaults
     */
    static Entry entry(Map<String, String> fields) {
        return new Entry(fields.getOrDefault("type", "unknown"), fields.getOrDefault("data", "{}"),
                fields.getOrDefault("text", ""));
    }

    private static ArrayNode counters(String data, ObjectMapper json) {
        if (JobEventData.parse(data, json) instanceof ArrayNode array) {
            return array;
        }
        throw new IllegalArgumentException("an answer delta's counters are not a JSON array: " + data);
    }
}
