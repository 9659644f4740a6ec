package dev.fencedqueue.worker;

/** Why a worker cancelled a job's pipeline. */
public enum CancelReason {
    /** A fenced write or the lock renewal found that a newer epoch owns the job, or the job is no longer active. */
    OWNERSHIP_LOST,
    /** The lock could not be renewed for longer than the lock duration, so it must be assumed lost. */
    LOCK_EXPIRED,
    /** The job was aborted, or the stalled-job check handed it to another worker, and the worker was told. */
    REVOKED,
    /** The worker is shutting down. */
    SHUTDOWN,
    /**
     * The attempt ran longer than the job's {@code timeout}: its pipeline is cancelled and the attempt is
     * written as failed ({@link JobTimeoutException}), retried if attempts are left.
     */
    TIMEOUT
}
