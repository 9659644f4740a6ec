package dev.fencedqueue.queue;

/** Thrown when a job id names no job of the queue (never added, or already removed by retention). */
public class JobNotFoundException extends QueueException {

    public JobNotFoundException(String queue, String jobId) {
        super("job `" + jobId + "` does not exist in queue `" + queue + "`");
    }
}
