package dev.fencedqueue.api;

import dev.fencedqueue.sse.FlowIds;
import dev.fencedqueue.events.StreamIds;

/**
 * Where an SSE client says what it saw last: the {@code Last-Event-ID} header an {@code EventSource} sends when it
 * reconnects by itself (HTML Living Standard, "Server-sent events"), or the {@code lastEventId} query parameter a
 * client uses when it opens a new {@code EventSource} (which cannot set headers) after the service refused a
 * stream, as {@code /fenced-stream.js} does. The header wins.
 */
public final class LastEventIds {

    /** The query parameter. */
    public static final String QUERY = "lastEventId";

    private LastEventIds() {
    }

    /**
     * @param header the {@code Last-Event-ID} header, or {@code null}
     * @param query the {@code lastEventId} query parameter, or {@code null}
     * @return the header when it is a stream id, else the query parameter when it is one, else the header as sent
     *         (the follower treats anything but a stream id as "from the start")
     */
    public static String of(String header, String query) {
        if (StreamIds.isValid(header) || !StreamIds.isValid(query)) {
            return header;
        }
        return query;
    }

    /**
     * @param header the {@code Last-Event-ID} header of a flow's stream, or {@code null}
     * @param query the {@code lastEventId} query parameter, or {@code null}
     * @return the header when it is a flow id ({@link FlowIds}), else the query parameter when it is one, else the
     *         header as sent (the flow follower treats anything but a flow id as "from the start")
     */
    public static String ofFlow(String header, String query) {
        if (FlowIds.isValid(header) || !FlowIds.isValid(query)) {
            return header;
        }
        return query;
    }
}
