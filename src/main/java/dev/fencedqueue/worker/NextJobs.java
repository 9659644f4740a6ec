package dev.fencedqueue.worker;

import java.time.Duration;

/**
 * The jobs a worker's script call activates for it besides its own transition ({@code moveToActive},
 * {@code moveToCompleted}, {@code moveToFailed}): how many, for which worker, under which lock.
 *
 * @param workerId the worker's id, recorded with each job's run
 * @param count the most jobs to activate, 0 for none
 * @param lockPrefix the call's lock token prefix (random per call; a job's lock token is {@code <prefix>:<jobId>})
 * @param lockDuration how long each job's lock holds before it must be renewed
 */
record NextJobs(String workerId, int count, String lockPrefix, Duration lockDuration) {

    /** @return {@link #lockDuration()} as a script argument, in ms */
    String lockDurationArg() {
        return Long.toString(lockDuration.toMillis());
    }
}
