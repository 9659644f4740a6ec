package dev.fencedqueue.queue;

/**
 * What {@link JobQueue#abort} did.
 *
 * @param jobId the aborted job
 * @param previousState the state the job was in when it was aborted
 */
public record AbortResult(String jobId, JobState previousState) {

    /** @return whether a worker was running the job (its LLM call is being closed) */
    public boolean wasRunning() {
        return previousState == JobState.ACTIVE;
    }
}
