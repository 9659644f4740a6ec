package dev.fencedqueue.api;

import java.time.Duration;

/** A client has used up its rate limit; answered {@code 429 Too Many Requests} with {@code Retry-After}. */
public class TooManyRequestsException extends RuntimeException {

    private final Duration retryAfter;

    /**
     * @param message what was limited, for the client
     * @param retryAfter how long until the client may try again, not {@code null}
     */
    public TooManyRequestsException(String message, Duration retryAfter) {
        super(message);
        this.retryAfter = retryAfter;
    }

    /** @return how long until the client may try again */
    public Duration retryAfter() {
        return retryAfter;
    }
}
