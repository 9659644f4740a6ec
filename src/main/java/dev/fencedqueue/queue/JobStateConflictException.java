package dev.fencedqueue.queue;

/**
 * Thrown when an operation does not fit the current state of a job or queue: removing a running job,
 * retrying a job that has not failed, obliterating a queue that is not paused. The API maps it to 409.
 */
public class JobStateConflictException extends QueueException {

    public JobStateConflictException(String message) {
        super(message);
    }
}
