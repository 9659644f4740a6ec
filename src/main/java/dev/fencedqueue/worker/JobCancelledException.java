package dev.fencedqueue.worker;

/** Fails the fenced writes a processor attempts after its job was cancelled; nothing was written. */
public class JobCancelledException extends RuntimeException {

    private final CancelReason reason;

    public JobCancelledException(String jobId, CancelReason reason) {
        super("job `" + jobId + "` was cancelled on this worker: " + reason);
        this.reason = reason;
    }

    /** @return why the job was cancelled */
    public CancelReason reason() {
        return reason;
    }
}
