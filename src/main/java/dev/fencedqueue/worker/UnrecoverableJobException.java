package dev.fencedqueue.worker;

/** Thrown by a processor to fail a job at once, without further attempts (BullMQ's {@code UnrecoverableError}). */
public class UnrecoverableJobException extends RuntimeException {

    public UnrecoverableJobException(String message) {
        super(message);
    }

    public UnrecoverableJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
