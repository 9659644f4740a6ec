package dev.fencedqueue.flow;

import dev.fencedqueue.queue.QueueException;

/**
 * A flow's child whose failure fails its parent ({@link dev.fencedqueue.queue.ParentPolicy#FAIL}) failed while the parent ran: the parent
 * cannot go on and fails for good, with the reason naming the child.
 */
public class ChildFailedException extends QueueException {

    /** @param reason {@code child <childKey> failed: <its reason>} */
    public ChildFailedException(String reason) {
        super(reason);
    }
}
