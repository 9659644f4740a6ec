package dev.fencedqueue.queue;

/**
 * A job named across queues, as a flow links a child to its parent: the queue and the job id, read from or written
 * as the job's hash key ({@code <prefix>:{<queue>}:job:<id>}, BullMQ's {@code parentKey}).
 *
 * @param queue the queue name
 * @param jobId the job id
 */
public record JobKey(String queue, String jobId) {

    private static final String JOB = "}:job:";

    /**
     * @param key a job's hash key, {@code <prefix>:{<queue>}:job:<id>}
     * @return the queue and the job id it names
     * @throws IllegalArgumentException when {@code key} is not a job key
     */
    public static JobKey parse(String key) {
        int open = key == null ? -1 : key.indexOf(":{");
        int close = open < 0 ? -1 : key.indexOf(JOB, open);
        if (close < 0) {
            throw new IllegalArgumentException("not a job key: " + key);
        }
        String jobId = key.substring(close + JOB.length());
        if (!QueueKeys.isJobId(jobId)) {
            throw new IllegalArgumentException("not a job key: " + key);
        }
        return new JobKey(key.substring(open + 2, close), jobId);
    }

    /**
     * @param keys the layout of the job's queue
     * @param jobId the job id
     * @return the job's key
     */
    public static String of(QueueKeys keys, String jobId) {
        return keys.job(jobId);
    }
}
