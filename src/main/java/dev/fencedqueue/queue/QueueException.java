package dev.fencedqueue.queue;

/** Base of the queue's unchecked exceptions; each subclass is one reason a queue operation was refused. */
public class QueueException extends RuntimeException {

    public QueueException(String message) {
        super(message);
    }

    public QueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
