package dev.fencedqueue.events;

import java.util.Set;

/**
 * One entry of a job's event stream.
 *
 * @param id the Redis stream entry id, {@code <ms>-<seq>}; also the SSE {@code id:}
 * @param type the event type: {@code started}, {@code progress}, {@code completed}, {@code failed},
 *        {@code aborted}, or a processor-defined type
 * @param fencingToken the fencing token of the epoch that wrote it (0 for an abort before any run)
 * @param data the event's JSON data, as {@link JobEventData} shapes it (read back from its stored form by
 *        {@link StoredEvent})
 */
public record JobEvent(String id, String type, long fencingToken, String data) {

    private static final Set<String> TERMINAL = Set.of("completed", "failed", "aborted");

    /** @return whether this event ends the job's stream: {@code completed}, {@code failed} or {@code aborted} */
    public boolean isTerminal() {
        return TERMINAL.contains(type);
    }

    /** @return when Redis appended the entry, ms since the epoch (the time part of the entry id) */
    public long timestamp() {
        return StreamIds.millis(id);
    }
}
