package dev.fencedqueue.api.admin;

/** Thrown when a queue has no key in Redis and is not served by this instance; answered with 404. */
public class UnknownQueueException extends RuntimeException {

    /** @param queue the queue name */
    public UnknownQueueException(String queue) {
        super("queue `" + queue + "` has no jobs and is not served by this instance");
    }
}
