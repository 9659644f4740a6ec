package dev.fencedqueue.llm;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

import io.smallrye.faulttolerance.api.CustomBackoffStrategy;

/**
 * The delay before a retry of opening the LLM stream: exponential ({@code delay}, doubled after each try, at most
 * {@code maxDelay}), unless the server sent {@code Retry-After}, which then decides (also capped at
 * {@code maxDelay}). One instance per guarded call (SmallRye Fault Tolerance asks its supplier for each).
 */
final class RetryAfterBackoff implements CustomBackoffStrategy {

    private final long maxDelayMs;
    private long nextMs;

    /**
     * @param delay the first delay, positive
     * @param maxDelay the longest delay
     */
    RetryAfterBackoff(Duration delay, Duration maxDelay) {
        this.nextMs = Math.max(1, delay.toMillis());
        this.maxDelayMs = maxDelay.toMillis();
    }

    @Override
    public long nextDelayInMillis(Throwable cause) {
        long computed = Math.min(nextMs, maxDelayMs);
        nextMs = Math.min(maxDelayMs, nextMs * 2);
        if (cause instanceof LlmUnavailableException unavailable && unavailable.retryAfter().isPresent()) {
            return Math.min(maxDelayMs, unavailable.retryAfter().get().toMillis());
        }
        return computed;
    }

    /**
     * Reads a {@code Retry-After} header (RFC 9110, section 10.2.3): a number of seconds, or an HTTP date.
     *
     * @param header the header's value, or {@code null}
     * @param now the current time, for a date
     * @return how long to wait (zero for a date in the past), or empty when absent or unreadable
     */
    static Optional<Duration> parse(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        String value = header.trim();
        try {
            return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(value))));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
            } catch (DateTimeParseException notADate) {
                return Optional.empty();
            }
        }
    }
}
