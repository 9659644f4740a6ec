package dev.fencedqueue.queue;

import java.util.Locale;

/**
 * A job's state, in BullMQ's terms, plus {@code aborted} for an intended stop. {@code waiting-children} is a flow's
 * parent waiting for its children to end.
 */
public enum JobState {
    WAITING,
    WAITING_CHILDREN,
    DELAYED,
    PRIORITIZED,
    ACTIVE,
    COMPLETED,
    FAILED,
    ABORTED,
    PAUSED;

    /** @return the lower-case name used in Redis and in the API, {@code waiting-children} for {@link #WAITING_CHILDREN} */
    public String value() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** @return whether the job has ended: completed, failed or aborted */
    public boolean isTerminal() {
        return this == COMPLETED || this == FAILED || this == ABORTED;
    }

    /**
     * @param value a lower-case state name as stored in Redis
     * @return the state
     * @throws IllegalArgumentException when the name is unknown
     */
    public static JobState of(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'));
    }
}
