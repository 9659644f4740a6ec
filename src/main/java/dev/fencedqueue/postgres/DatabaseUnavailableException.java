package dev.fencedqueue.postgres;

/** PostgreSQL is not configured or cannot be reached; the API answers 503. */
public class DatabaseUnavailableException extends RuntimeException {

    public DatabaseUnavailableException(String message) {
        super(message);
    }

    public DatabaseUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
