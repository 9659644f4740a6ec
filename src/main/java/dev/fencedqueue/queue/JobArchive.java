package dev.fencedqueue.queue;

import java.util.Optional;

import io.smallrye.mutiny.Uni;

/**
 * Where finished jobs go once Redis no longer keeps them (PostgreSQL, {@code fq.archive.*}), read back transparently
 * by the readers of jobs and of their events when Redis has no such job.
 */
public interface JobArchive {

    /** The archive of a service that keeps none ({@code fq.archive.enabled=false}, or no datasource). */
    JobArchive NONE = new JobArchive() {

        @Override
        public boolean isActive() {
            return false;
        }

        @Override
        public Uni<Optional<ArchivedJob>> find(String queue, String jobId) {
            return Uni.createFrom().item(Optional.empty());
        }
    };

    /**
     * @return whether finished jobs move here: Redis then keeps them a grace period and never removes one by its
     *         retention ({@code removeOnComplete} / {@code removeOnFail} by count or age) before it moved, so that
     *         none is lost while the archive is down
     */
    boolean isActive();

    /**
     * @param queue the job's queue, must not be {@code null}
     * @param jobId the job id, must not be {@code null}
     * @return the job as it was archived (its latest finishing, when its id was used again), or empty when the
     *         archive has no such job; fails when the archive cannot be read (PostgreSQL is down: the HTTP API answers
     *         503)
     */
    Uni<Optional<ArchivedJob>> find(String queue, String jobId);
}
