package dev.fencedqueue.queue;

/**
 * What {@link JobQueue#add} did.
 *
 * @param jobId the id of the job, new or existing
 * @param created {@code true} when the job was added, {@code false} when an existing job was returned
 * @param deduplicated {@code true} when nothing was added because a job with the same deduplication id is
 *        live (its id is {@code jobId})
 */
public record AddResult(String jobId, boolean created, boolean deduplicated) {

    static AddResult of(String jobId, int code) {
        return new AddResult(jobId, code == 1, code == 2);
    }
}
