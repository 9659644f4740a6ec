package dev.fencedqueue.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The body of {@code 202 Accepted} from {@code POST /research/start}.
 *
 * @param jobId the job id
 * @param streamUrl SSE stream of the job's events
 * @param statusUrl the job's status
 * @param historyUrl every stored event
 * @param validHistoryUrl the latest epoch's events
 * @param abortUrl {@code POST} here to abort the job
 * @param created {@code false} when an {@code Idempotency-Key} returned an existing job
 * @param flowStreamUrl a deep research job's flow stream: its events and its children's, merged; absent for a plain job
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StartResponse(String jobId, String streamUrl, String statusUrl, String historyUrl,
        String validHistoryUrl, String abortUrl, boolean created, String flowStreamUrl) {

    static StartResponse of(String jobId, boolean created, boolean deep) {
        return new StartResponse(jobId, "/research/stream/" + jobId, "/research/status/" + jobId,
                "/research/history/" + jobId, "/research/valid-history/" + jobId, "/research/abort/" + jobId, created,
                deep ? "/research/stream/" + jobId + "/flow" : null);
    }
}
