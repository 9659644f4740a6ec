package dev.fencedqueue.queue;

/**
 * What {@link JobQueue#add} did.
 *
 * @param jobId the id of the job, new or existing
 * @param created {@code true} when the job was added, {@code false} when the job id or idempotency key
 *        named an existing job, which was returned instead
 */
public record AddResult(String jobId, boolean created) {
}
