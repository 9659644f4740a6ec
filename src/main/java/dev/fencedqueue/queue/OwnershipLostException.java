package dev.fencedqueue.queue;

/**
 * Thrown when a worker's write about a job is refused inside Redis because the worker no longer owns the
 * job: the lock belongs to someone else, the fencing token is stale, or the job is no longer active. The
 * worker must stop working on the job (it is a zombie for that job).
 */
public class OwnershipLostException extends QueueException {

    private final int code;

    public OwnershipLostException(String message, int code) {
        super(message);
        this.code = code;
    }

    /** @return the script's return code: -1 no job, -7 stale fencing token, -9 not active */
    public int code() {
        return code;
    }
}
