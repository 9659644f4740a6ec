package dev.fencedqueue.api;

import java.util.List;

import dev.fencedqueue.bulk.Throttle;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/** The request and response bodies of the notification API ({@code /notifications}). */
public final class NotificationRequests {

    private NotificationRequests() {
    }

    /**
     * Body of {@code POST /notifications/channels/{channel}/subscribers}.
     *
     * @param subscriberIds 1 to 1,000 subscriber ids, each 1 to 128 of {@code A-Z a-z 0-9 . _ : @ -} (a bad one is named
     *        by its index: {@code subscriberIds[3]})
     */
    public record AddSubscribers(
            @NotNull(message = "`subscriberIds` must be an array of 1 to 1000 subscriber ids")
            @Size(min = 1, max = 1000, message = "`subscriberIds` must hold 1 to 1000 subscriber ids")
            List<@NotNull(message = "must be a subscriber id, not null")
                    @Pattern(regexp = "[A-Za-z0-9._:@-]{1,128}",
                            message = "must be 1 to 128 of A-Z a-z 0-9 . _ : @ -") String> subscriberIds) {
    }

    /**
     * Answer of {@code POST /notifications/channels/{channel}/subscribers}.
     *
     * @param channel the channel
     * @param added how many of the ids were new to it
     */
    public record SubscribersAdded(String channel, int added) {
    }

    /**
     * Body of {@code POST /notifications/channels/{channel}/fan-out}.
     *
     * @param message the notification's text, 1 to 4,000 characters
     * @param chunkSize subscribers per chunk (one transaction each), 1 to 10,000; {@code null}: {@code fq.bulk.chunk-size}
     * @param throttle the pacing to start with; {@code null}: none
     */
    public record FanOutRequest(
            @NotBlank(message = "`message` must not be blank")
            @Size(max = 4000, message = "`message` must be at most {max} characters") String message,
            @Min(value = 1, message = "`chunkSize` must be at least 1")
            @Max(value = 10_000, message = "`chunkSize` must be at most 10000") Integer chunkSize,
            @Valid Throttle throttle) {
    }

    /**
     * Answer of {@code POST /notifications/channels/{channel}/fan-out} (202).
     *
     * @param jobId the fan-out's job id
     * @param streamUrl its event stream (SSE)
     * @param statusUrl its status, with cursor progress
     */
    public record FanOutAccepted(String jobId, String streamUrl, String statusUrl) {

        static FanOutAccepted of(String jobId) {
            return new FanOutAccepted(jobId, "/notifications/jobs/" + jobId + "/stream", "/notifications/jobs/" + jobId);
        }
    }
}
