package dev.fencedqueue.research;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The upstream response a run of a Responses answer streams: its id once the server named it, and whether a run that
 * takes the job over may re-attach to it (not when its stream carried no sequence numbers: the numbers committed are
 * this instance's, which name nothing upstream). Its checkpoint is {@code {responseId, sequenceNumber, reattachable}}.
 * Thread-safe.
 */
final class UpstreamResponse {

    private static final String ID = "responseId";
    private static final String SEQUENCE = "sequenceNumber";
    private static final String REATTACHABLE = "reattachable";

    private volatile String id;
    private volatile boolean reattachable;

    /**
     * @param id the response's id, {@code null} until the server names it
     * @param reattachable whether a run that takes the job over may re-attach to it
     */
    UpstreamResponse(String id, boolean reattachable) {
        this.id = id;
        this.reattachable = reattachable;
    }

    /** @return the response's id, {@code null} until the server named it */
    String id() {
        return id;
    }

    /**
     * The server created the response the run now streams.
     *
     * @param id its id, as the server named it
     * @param sequenced whether its stream carries sequence numbers: only then may a later run re-attach to it
     */
    void created(String id, boolean sequenced) {
        this.id = id;
        this.reattachable = sequenced;
    }

    /** @return whether a run that takes the job over may re-attach to the response */
    boolean reattachable() {
        return reattachable;
    }

    /**
     * @param sequence the sequence number of the last event the committed events cover
     * @param json the mapper to build it with
     * @return the checkpoint that names the response, that event, and whether it may be re-attached to
     */
    ObjectNode checkpoint(long sequence, ObjectMapper json) {
        return json.createObjectNode().put(ID, id).put(SEQUENCE, sequence).put(REATTACHABLE, reattachable);
    }

    /**
     * @param checkpoint a checkpoint as {@link #checkpoint} shapes it (one without {@code reattachable}, of an earlier
     *        version, may be re-attached to)
     * @return the response it names, {@code null} when it names none
     */
    static String id(JsonNode checkpoint) {
        return checkpoint.path(ID).asText(null);
    }

    /** @return the last sequence number the checkpoint covers, -1 when none */
    static long sequence(JsonNode checkpoint) {
        return checkpoint.path(SEQUENCE).asLong(-1);
    }

    /** @return whether the checkpoint's response may be re-attached to */
    static boolean reattachable(JsonNode checkpoint) {
        return checkpoint.path(REATTACHABLE).asBoolean(true);
    }
}
