package dev.fencedqueue.worker;

/**
 * The tests' way into a {@link Worker}'s test seam, which the main code keeps package-private: freezing a worker as if
 * paused by GC or cut from Redis. A frozen worker fetches no job, renews no lock (so checks no fencing token) and
 * ignores revoke notices; its running jobs go on and their writes still reach Redis, where they are rejected once
 * another run owns the job; its stalled-job check goes on, as another instance's would.
 */
public final class WorkerTestAccess {

    private WorkerTestAccess() {
    }

    /**
     * Freezes the worker: from now on it fetches no job and renews no lock, so the stalled-job check hands its running
     * jobs to other workers once their locks expired.
     *
     * @param worker a worker, must not be {@code null}
     */
    public static void freeze(Worker worker) {
        worker.freeze(true);
    }

    /**
     * Thaws a worker frozen with {@link #freeze}: it fetches jobs again, and its next lock renewal finds out which of
     * its jobs another run took over (and cancels them).
     *
     * @param worker a worker, must not be {@code null}
     */
    public static void thaw(Worker worker) {
        worker.freeze(false);
    }
}
