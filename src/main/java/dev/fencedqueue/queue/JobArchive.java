package dev.fencedqueue.queue;

import java.util.List;
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

        @Override
        public Uni<List<Job>> finished(String queue, JobState state, long finishedBefore, int start, int count) {
            return Uni.createFrom().item(List.of());
        }

        @Override
        public Uni<Long> countFinished(String queue, JobState state) {
            return Uni.createFrom().item(0L);
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

    /**
     * A page of a queue's archived jobs of one outcome, newest first (by finish time, then by job id, descending), for
     * the operator's lists. A job whose id finished more than once (a fixed {@code jobId} added again) is listed once
     * per finishing.
     *
     * @param queue the queue, must not be {@code null}
     * @param state {@link JobState#COMPLETED}, or {@link JobState#FAILED} for the failed and the aborted jobs
     * @param finishedBefore only jobs that finished before this time, ms since the epoch (Redis clock), exclusive;
     *        {@link Long#MAX_VALUE} for all. The operator API passes the finish time of the oldest such job Redis
     *        still holds: a job being moved (written to the archive, not yet dropped from Redis) is then listed once
     * @param start index of the first job of the page, from 0
     * @param count most jobs to return, 1 to 1,000
     * @return the jobs as archived (their records, without their event streams), empty when the archive holds none or
     *         is off; fails with {@code DatabaseUnavailableException} when the archive cannot be read (503)
     * @throws IllegalArgumentException for another state, a negative {@code start} or a {@code count} outside 1..1,000
     */
    Uni<List<Job>> finished(String queue, JobState state, long finishedBefore, int start, int count);

    /**
     * How many archived jobs of one outcome a queue has. May be a few seconds old: counting a large archive costs
     * PostgreSQL a scan of the queue's part of an index, so implementations keep the count briefly.
     *
     * @param queue the queue, must not be {@code null}
     * @param state {@link JobState#COMPLETED}, or {@link JobState#FAILED} for the failed and the aborted jobs
     * @return the count, 0 when the archive is off; fails with {@code DatabaseUnavailableException} when the archive
     *         cannot be read (503)
     * @throws IllegalArgumentException for another state
     */
    Uni<Long> countFinished(String queue, JobState state);
}
