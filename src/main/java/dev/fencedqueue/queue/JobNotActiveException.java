package dev.fencedqueue.queue;

/** Thrown when a worker writes about a job that is no longer active (finished, aborted or handed back); not applied. */
public class JobNotActiveException extends OwnershipLostException {

    public JobNotActiveException(String message) {
        super(message, -9);
    }
}
