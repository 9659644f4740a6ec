package dev.fencedqueue.queue;

import java.util.List;
import java.util.Map;

/**
 * A finished job as the archive holds it: every Redis key of the job as it was when it moved.
 *
 * @param queue the job's queue
 * @param jobId the job id
 * @param finishedOn when the job finished, ms since the epoch (the Redis clock)
 * @param hash the job hash, field to value, never empty
 * @param childrenValues a flow's parent: child job key to its return value (JSON); empty otherwise
 * @param failedChildren a flow's parent: child job key to the reason it failed; empty otherwise
 * @param children a flow's parent: every child job key it had; empty otherwise
 * @param events every entry of the job's event stream in stream order, in its stored form; empty when the job kept
 *        none
 */
public record ArchivedJob(String queue, String jobId, long finishedOn, Map<String, String> hash,
        Map<String, String> childrenValues, Map<String, String> failedChildren, List<String> children,
        List<StreamEntry> events) {

    /**
     * One entry of a job's event stream, as Redis stored it.
     *
     * @param id the stream entry id, {@code <ms>-<seq>}
     * @param fields the entry's fields and values, in their order
     */
    public record StreamEntry(String id, Map<String, String> fields) {
    }

    /** @return the job, read as from Redis */
    public Job job() {
        return Job.fromHash(queue, jobId, hash);
    }
}
