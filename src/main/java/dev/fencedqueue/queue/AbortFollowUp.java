package dev.fencedqueue.queue;

import io.smallrye.mutiny.Uni;

/**
 * What follows the abort of a job beyond its own queue: a flow's parent aborts its children that have not ended, and
 * a child's ending is delivered to its parent. {@link JobQueue#abort} calls it once the job is aborted; flows
 * ({@code dev.fencedqueue.flow}) implement it, so that this package does not depend on them.
 */
public interface AbortFollowUp {

    /**
     * Does what follows the abort of a job. Doing it twice changes nothing.
     *
     * @param queue the job's queue, not {@code null}
     * @param jobId the job's id, not {@code null}
     * @param reason why it was aborted, not {@code null}
     * @return completes when done (children already ended, or gone, are skipped); fails with
     *         {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable
     */
    Uni<Void> aborted(QueueKeys queue, String jobId, String reason);
}
