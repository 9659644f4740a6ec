package dev.fencedqueue.queue;

/** Thrown when an operation needs a job that has not finished, but the job already reached a terminal state. */
public class JobFinishedException extends QueueException {

    private final JobState state;

    public JobFinishedException(String queue, String jobId, JobState state) {
        super("job `" + jobId + "` of queue `" + queue + "` already ended " + state.value());
        this.state = state;
    }

    /** @return the terminal state the job is in */
    public JobState state() {
        return state;
    }
}
