package dev.fencedqueue.queue;

/**
 * Thrown when a fenced write carries a fencing token that is no longer the job's current token, or comes from an
 * attempt other than the one recorded at the job's activation (Redis lost the writer's activation and handed its
 * token out again): a newer epoch (run) of the job owns it. The write was not applied (Kleppmann, "How to do
 * distributed locking").
 */
public class StaleFencingTokenException extends OwnershipLostException {

    public StaleFencingTokenException(String message) {
        super(message, -7);
    }
}
