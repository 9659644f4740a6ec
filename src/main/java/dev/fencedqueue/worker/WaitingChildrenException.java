package dev.fencedqueue.worker;

/**
 * How a run ends that parked its job until the job's children end (its context's {@code moveToWaitingChildren()},
 * BullMQ's {@code WaitingChildrenError}): not a failure. The job left the active list without counting an attempt;
 * the worker writes nothing more for it and frees its slot. Its next run, once the last child ended, is a new epoch.
 */
public class WaitingChildrenException extends RuntimeException {

    /** @param jobId the parked job's id */
    public WaitingChildrenException(String jobId) {
        super("job `" + jobId + "` waits for its children", null, false, false);
    }
}
