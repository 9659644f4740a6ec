package dev.fencedqueue.redis;

/** Thrown when Redis cannot be reached or does not answer within the command timeout; the API maps it to 503. */
public class RedisUnavailableException extends RuntimeException {

    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
