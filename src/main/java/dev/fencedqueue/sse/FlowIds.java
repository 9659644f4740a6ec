package dev.fencedqueue.sse;

import dev.fencedqueue.events.StreamIds;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@code id:} of a flow's SSE stream ({@link FlowSubscriber}): where the reader is in each job's stream, so that a
 * reconnect with {@code Last-Event-ID} (HTML Living Standard, "Server-sent events") resumes every job of the flow at
 * once. Written as {@code <key>=<entry id>} pairs joined by {@code ,}: the key {@value #ROOT} for the flow's root job,
 * and for a child whose id is {@code <rootId>:<key>} its key; e.g. {@code *=1700000000000-3,q1=1700000000100-0}.
 */
public final class FlowIds {

    /** The key of the root job. */
    public static final String ROOT = "*";
    /** Most jobs one id names. */
    static final int MAX_JOBS = 64;

    private static final Pattern KEY = Pattern.compile("\\*|[A-Za-z0-9._~-]{1,128}");

    private FlowIds() {
    }

    /**
     * @param id a {@code Last-Event-ID} as sent, or {@code null}
     * @return key -> entry id, in the id's order; empty when {@code id} is {@code null} or not a flow id (the reader
     *         then starts from the beginning of every stream)
     */
    public static Map<String, String> parse(String id) {
        Map<String, String> positions = new LinkedHashMap<>();
        if (id == null || id.isEmpty()) {
            return positions;
        }
        String[] pairs = id.split(",", MAX_JOBS + 1);
        if (pairs.length > MAX_JOBS) {
            return new LinkedHashMap<>();
        }
        for (String pair : pairs) {
            int at = pair.indexOf('=');
            String key = at < 0 ? "" : pair.substring(0, at);
            String entry = at < 0 ? "" : pair.substring(at + 1);
            if (!KEY.matcher(key).matches() || !StreamIds.isValid(entry)) {
                return new LinkedHashMap<>();
            }
            positions.put(key, entry);
        }
        return positions;
    }

    /** @return whether {@code id} is a flow id that names at least one job */
    public static boolean isValid(String id) {
        return !parse(id).isEmpty();
    }

    /**
     * @param positions key -> entry id of the last event shown of each job, not empty
     * @return the id
     */
    static String format(Map<String, String> positions) {
        StringBuilder id = new StringBuilder();
        positions.forEach((key, entry) -> id.append(id.isEmpty() ? "" : ",").append(key).append('=').append(entry));
        return id.toString();
    }
}
