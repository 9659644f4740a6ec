package dev.fencedqueue.queue;

/** Thrown when a job's lock is held under another lock token than the writer's; the write was not applied. */
public class LockMismatchException extends OwnershipLostException {

    public LockMismatchException(String message) {
        super(message, -6);
    }
}
