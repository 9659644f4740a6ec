package dev.fencedqueue.notifications;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One delivered notification, as {@code GET /notifications/subscribers/{subscriberId}} lists it.
 *
 * @param channel the channel it went to
 * @param jobId the fan-out that delivered it
 * @param message its text
 * @param createdAt when it was written, ISO-8601 with offset
 */
@RegisterForReflection
public record Notification(String channel, String jobId, String message, String createdAt) {
}
