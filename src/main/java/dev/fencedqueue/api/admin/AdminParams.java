package dev.fencedqueue.api.admin;

import java.time.Duration;
import java.util.Locale;

import dev.fencedqueue.api.InvalidParameterException;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import io.quarkus.runtime.configuration.DurationConverter;

/**
 * Parses the operator API's parameters, failing with {@link InvalidParameterException} (400, naming the
 * parameter) instead of JAX-RS's 404 for unconvertible query parameters. Absent means {@code null} or blank.
 */
final class AdminParams {

    private AdminParams() {
    }

    /**
     * @param queues the queues
     * @param name the {@code queue} path parameter
     * @return the queue's view
     */
    static JobQueue queue(Queues queues, String name) {
        try {
            return queues.lookup(name);
        } catch (IllegalArgumentException e) {
            throw new InvalidParameterException("queue", e.getMessage());
        }
    }

    /**
     * @param field the parameter name
     * @param value its value, or {@code null} for {@code absent}
     * @param absent the value when absent
     * @return the state named by {@code value}
     */
    static JobState state(String field, String value, JobState absent) {
        if (value == null || value.isBlank()) {
            if (absent == null) {
                throw new InvalidParameterException(field, "`" + field + "` is required");
            }
            return absent;
        }
        try {
            return JobState.of(value.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidParameterException(field, "`" + field + "` must be a job state (waiting, paused, "
                    + "prioritized, delayed, waiting-children, active, completed, failed), was " + value);
        }
    }

    /**
     * @param field the parameter name
     * @param value its value, or {@code null} for {@code absent}
     * @param absent the value when absent
     * @param min the smallest value allowed
     * @param max the largest value allowed
     * @return the integer
     */
    static int integer(String field, String value, int absent, int min, int max) {
        if (value == null || value.isBlank()) {
            return absent;
        }
        try {
            int parsed = Integer.parseInt(value.trim());
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new InvalidParameterException(field, "`" + field + "` must be an integer from " + min + " to " + max
                + ", was " + value);
    }

    /**
     * @param field the parameter name
     * @param value a duration such as {@code 1h}, {@code 30s}, {@code 500ms}, {@code PT1M} or a number of
     *        seconds; {@code null} for {@code absent}
     * @param absent the value when absent
     * @return the duration, never negative
     */
    static Duration duration(String field, String value, Duration absent) {
        if (value == null || value.isBlank()) {
            return absent;
        }
        Duration parsed;
        try {
            parsed = DurationConverter.parseDuration(value.trim());
        } catch (RuntimeException e) {
            parsed = null;
        }
        if (parsed == null || parsed.isNegative()) {
            throw new InvalidParameterException(field, "`" + field + "` must be a duration such as 30s, 5m, 1h, 500ms "
                    + "or PT1M, was " + value);
        }
        return parsed;
    }

    /**
     * @param field the parameter name
     * @param value {@code true} or {@code false}, or {@code null} for {@code false}
     * @return the boolean
     */
    static boolean bool(String field, String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidParameterException(field, "`" + field + "` must be true or false, was " + value);
        };
    }
}
