package dev.fencedqueue.queue;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One job of a flow (BullMQ's {@code FlowJob}): a job, what its failure does to its parent, and its own children,
 * which run before it. A child's id is derived from its parent's id and its {@code key}: {@code <parentId>:<key>}, so
 * adding the same flow (or the same children from a later run of the parent) again adds nothing.
 *
 * @param queue the queue it runs in: 1 to 100 of {@code A-Z a-z 0-9 . _ -}; children may use other queues than
 *        their parent
 * @param name the job name, not blank
 * @param data its data (any JSON), {@code null} for JSON {@code null}
 * @param options its options, not {@code null}; a child's {@code jobId} is ignored (derived from its key), as are
 *        idempotency and deduplication
 * @param key a child's key, unique among its siblings: 1 to 64 of {@code A-Z a-z 0-9 . _ ~ -}; {@code null} for the
 *        position among its siblings (0, 1, ...); ignored for the root
 * @param policy what its failure does to its parent; {@code null} for {@link ParentPolicy#FAIL}
 * @param children its children, {@code null} or empty for none
 */
public record FlowJob(String queue, String name, JsonNode data, JobOptions options, String key, ParentPolicy policy,
        List<FlowJob> children) {

    /** Most jobs in one flow (the root and every descendant). */
    public static final int MAX_JOBS = 1_000;

    /** Most levels of children under the root. */
    public static final int MAX_DEPTH = 8;

    public FlowJob {
        children = children == null ? List.of() : List.copyOf(children);
        policy = policy == null ? ParentPolicy.FAIL : policy;
    }

    /**
     * @param queue the queue
     * @param name the job name
     * @param data its data
     * @return a job with default options, no key and no children
     */
    public static FlowJob of(String queue, String name, JsonNode data) {
        return new FlowJob(queue, name, data, JobOptions.defaults(), null, null, List.of());
    }

    /** @return this job with these children */
    public FlowJob withChildren(List<FlowJob> value) {
        return new FlowJob(queue, name, data, options, key, policy, value);
    }

    /** @return this job with this key */
    public FlowJob withKey(String value) {
        return new FlowJob(queue, name, data, options, value, policy, children);
    }

    /** @return this job with this failure policy */
    public FlowJob withPolicy(ParentPolicy value) {
        return new FlowJob(queue, name, data, options, key, value, children);
    }

    /** @return this job with these options */
    public FlowJob withOptions(JobOptions value) {
        return new FlowJob(queue, name, data, value, key, policy, children);
    }
}
