package dev.fencedqueue.notifications;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.bulk.Throttle;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * The data of a fan-out job: send {@code message} to every subscriber of {@code channel}. Its constraints are those of
 * {@code POST /notifications/channels/{channel}/fan-out}, checked when a fan-out is added over the operator API (a job
 * scheduler's template, a flow).
 *
 * @param channel the channel, also the job's single-flight key: 1 to 100 of {@code A-Z a-z 0-9 . _ : -}
 * @param message the notification's text, 1 to 4,000 characters
 * @param chunkSize subscribers per chunk (one transaction each), 1 to 10,000
 * @param throttle the pacing the job starts with, never {@code null}
 */
// Written to Redis and read back by Jackson outside the REST layer: the native image needs it registered.
@RegisterForReflection
public record FanOut(
        @NotNull(message = "`channel` must be 1 to 100 of A-Z a-z 0-9 . _ : -")
        @Pattern(regexp = "[A-Za-z0-9._:-]{1,100}", message = "`channel` must be 1 to 100 of A-Z a-z 0-9 . _ : -")
        String channel,
        @NotBlank(message = "`message` must not be blank")
        @Size(max = 4000, message = "`message` must be at most {max} characters") String message,
        @Min(value = 1, message = "`chunkSize` must be at least 1")
        @Max(value = 10_000, message = "`chunkSize` must be at most 10000") int chunkSize,
        @Valid Throttle throttle) {

    /** A fan-out's data without a throttle (a scheduler's template may leave it out) is paced by none. */
    public FanOut {
        throttle = throttle == null ? Throttle.NONE : throttle;
    }

    /**
     * @param json the application's object mapper, must not be {@code null}
     * @param jobId the fan-out job's id
     * @return the payload this fan-out pushes to each subscriber, JSON: {@code channel}, {@code message}, {@code jobId}
     */
    String payload(ObjectMapper json, String jobId) {
        return json.createObjectNode().put("channel", channel).put("message", message).put("jobId", jobId).toString();
    }
}
