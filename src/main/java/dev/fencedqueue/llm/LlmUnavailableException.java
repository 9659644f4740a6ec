package dev.fencedqueue.llm;

import java.time.Duration;
import java.util.Optional;

/**
 * The LLM server answered {@code 429 Too Many Requests} or a {@code 5xx} other than {@code 501 Not Implemented} (a
 * refusal: {@link LlmRefusedException}) before any byte of an answer: opening the stream is retried (after {@link #retryAfter()} when the server said so), and counts against the circuit breaker.
 */
public class LlmUnavailableException extends LlmException {

    private final int status;
    private final transient Optional<Duration> retryAfter;

    /**
     * @param message what happened, naming the server and the status
     * @param status the HTTP status, {@code 429} or a {@code 5xx} other than {@code 501}
     * @param retryAfter the server's {@code Retry-After}, when it sent a valid one
     */
    public LlmUnavailableException(String message, int status, Optional<Duration> retryAfter) {
        super(message);
        this.status = status;
        this.retryAfter = retryAfter;
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return how long the server asked to wait, when it did */
    public Optional<Duration> retryAfter() {
        return retryAfter;
    }
}
