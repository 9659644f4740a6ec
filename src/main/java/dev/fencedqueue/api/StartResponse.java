package dev.fencedqueue.api;

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
 */
public record StartResponse(String jobId, String streamUrl, String statusUrl, String historyUrl,
        String validHistoryUrl, String abortUrl, boolean created) {

    static StartResponse of(String jobId, boolean created) {
        return new StartResponse(jobId, "/research/stream/" + jobId, "/research/status/" + jobId,
                "/research/history/" + jobId, "/research/valid-history/" + jobId, "/research/abort/" + jobId, created);
    }
}
