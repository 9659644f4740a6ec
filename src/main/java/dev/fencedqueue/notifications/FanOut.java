package dev.fencedqueue.notifications;

import dev.fencedqueue.bulk.Throttle;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The data of a fan-out job: send {@code message} to every subscriber of {@code channel}.
 *
 * @param channel the channel, also the job's single-flight key
 * @param message the notification's text
 * @param chunkSize subscribers per chunk (one transaction each)
 * @param throttle the pacing the job starts with, never {@code null}
 */
// Written to Redis and read back by Jackson outside the REST layer: the native image needs it registered.
@RegisterForReflection
public record FanOut(String channel, String message, int chunkSize, Throttle throttle) {

    /** A fan-out's data without a throttle (a scheduler's template may leave it out) is paced by none. */
    public FanOut {
        throttle = throttle == null ? Throttle.NONE : throttle;
    }
}
