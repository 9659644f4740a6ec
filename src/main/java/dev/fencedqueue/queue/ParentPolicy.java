package dev.fencedqueue.queue;

import java.util.Locale;

/**
 * What a flow's child that fails (or is aborted) does to its parent, after its own attempts are spent (BullMQ's
 * {@code failParentOnFailure}, {@code ignoreDependencyOnFailure} and {@code removeDependencyOnFailure}).
 */
public enum ParentPolicy {
    /**
     * The parent fails for good, with a reason naming the child ({@code child <childKey> failed: <reason>}). The
     * default: unlike BullMQ, whose parent then waits forever, a job accepted here always ends.
     */
    FAIL,
    /** The parent goes on; the child's reason is kept and read with {@code FlowReader.failedChildren}. */
    IGNORE,
    /** The parent goes on as if it never had the child. */
    REMOVE;

    /** @return the lower-case name used in Redis and in the API */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param value {@code fail}, {@code ignore} or {@code remove}; {@code null} for {@link #FAIL}
     * @return the policy
     * @throws IllegalArgumentException for any other value
     */
    public static ParentPolicy of(String value) {
        if (value == null) {
            return FAIL;
        }
        try {
            return valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("must be `fail`, `ignore` or `remove`, was " + value, e);
        }
    }
}
