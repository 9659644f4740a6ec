package dev.fencedqueue.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.bulk.Cursor;
import dev.fencedqueue.bulk.Throttle;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.tracing.JobTracing;

/**
 * A chunked job as {@code GET /notifications/jobs/{jobId}} and the operator API show it: its queue state and
 * fencing token (Redis), and its cursor progress, read from the database (the truth) when one is configured,
 * else from the job's last progress event (the mirror written after each commit).
 *
 * @param jobId the job id
 * @param tenant the tenant the job belongs to ({@code default} while tenancy is off: {@code fq.tenancy.source})
 * @param state {@code waiting}, {@code active}, {@code completed}, {@code failed}, {@code aborted} (resumable) ...
 * @param fencingToken the current fencing token (0 before the first run)
 * @param cursor the position after the last committed chunk ({@code ""} before the first)
 * @param chunksDone committed chunks
 * @param itemsDone committed items
 * @param itemsTotal all items when known, else absent
 * @param throttle the throttle an operator set while it ran, or absent (then the one it started with applies)
 * @param abortRequested whether an operator's abort waits for the next chunk boundary
 * @param singleFlightKey its single-flight key (a fan-out's channel)
 * @param data the job's data
 * @param attemptsMade attempts that ended
 * @param workerId the worker of the latest attempt, or absent
 * @param failedReason why it failed or was aborted, or absent
 * @param progress its last progress event's fields, or absent
 * @param traceId the id of the job's trace (OpenTelemetry), or absent when tracing was off when it was added
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BulkJobView(String jobId, String tenant, String state, long fencingToken, String cursor, long chunksDone, long itemsDone,
        Long itemsTotal, Throttle throttle, boolean abortRequested, String singleFlightKey, JsonNode data, int attemptsMade, String workerId,
        String failedReason, JsonNode progress, String traceId) {

    /**
     * @param job the job, must not be {@code null}
     * @param committed its cursor in the database, or {@code null} when unknown there
     * @param gate its abort flag and throttle, must not be {@code null}
     * @param json parses the job's JSON fields
     * @return the view
     */
    public static BulkJobView of(Job job, Cursor committed, BulkControl.Gate gate, ObjectMapper json) {
        JsonNode progress = JobStatusView.parse(json, job.progress());
        JsonNode data = JobStatusView.parse(json, job.data());
        Cursor cursor = committed != null ? committed : mirrored(progress);
        JsonNode total = progress == null ? null : progress.get("itemsTotal");
        return new BulkJobView(job.id(), job.tenant(), job.state().value(), job.fencingToken(), cursor.position(), cursor.chunksDone(),
                cursor.itemsDone(), total == null || total.isNull() ? null : total.asLong(), gate.throttle().orElse(null),
                gate.abort(),
                data == null || !data.has("channel") ? null : data.get("channel").asText(), data, job.attemptsMade(),
                job.workerId(), job.failedReason(), progress, JobTracing.traceId(job.traceParent()));
    }

    private static Cursor mirrored(JsonNode progress) {
        if (progress == null || !progress.has("cursor")) {
            return Cursor.START;
        }
        return new Cursor(progress.get("cursor").asText(), progress.path("chunksDone").asLong(),
                progress.path("itemsDone").asLong());
    }
}
