package dev.fencedqueue.queue;

/**
 * Thrown when a job is added with an {@code Idempotency-Key} that, within its time to live, was used for another
 * request (another job name or data): nothing is added. The same key with the same request gives the earlier job back;
 * a different request needs a new key. The API maps it to 422, as the IETF HTTP API working group's Idempotency-Key
 * draft and Stripe answer.
 */
public class IdempotencyKeyReusedException extends QueueException {

    private final String jobId;

    /**
     * @param queue the queue the job was added to
     * @param jobId the job the key was first used for
     */
    public IdempotencyKeyReusedException(String queue, String jobId) {
        super("this Idempotency-Key was used for another request (job `" + jobId + "` of queue `" + queue
                + "`): send the same request again with it, or a new request with a new key");
        this.jobId = jobId;
    }

    /** @return the job the key was first used for */
    public String jobId() {
        return jobId;
    }
}
