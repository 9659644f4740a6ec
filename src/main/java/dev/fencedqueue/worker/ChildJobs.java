package dev.fencedqueue.worker;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.queue.QueueKeys;
import io.smallrye.mutiny.Uni;

/**
 * The children of a running job (a flow's parent, BullMQ's parent and child jobs), as its {@link JobContext} reaches
 * them: {@link JobContext#addChildren}, {@link JobContext#moveToWaitingChildren}, {@link JobContext#childrenValues},
 * {@link JobContext#failedChildren}. Flows implement it ({@code flow.Flows}, a CDI bean), so that this package
 * does not depend on them. The worker sends each write from its lane and fences it as every write of the attempt.
 */
public interface ChildJobs {

    /**
     * Adds children to a running job, fenced: only while {@code lockToken} and {@code fencingToken} are the job's.
     *
     * @param parent the job's queue, not {@code null}
     * @param parentId the job's id, not {@code null}
     * @param parentTenant the job's tenant, {@code null} for the default one
     * @param lockToken the run's lock token
     * @param fencingToken the run's fencing token
     * @param children the children, not empty; each id is {@code <parentId>:<key>}
     * @param traceParent the W3C {@code traceparent} of the span that adds them, {@code ""} for none
     * @return how many were new to the job; fails with the {@link dev.fencedqueue.queue.QueueException} of a refused
     *         write ({@link dev.fencedqueue.queue.OwnershipLostException}, {@link dev.fencedqueue.queue.JobNotFoundException})
     * @throws IllegalArgumentException naming the bad field ({@code children[0].queue}); nothing is written then
     */
    Uni<Integer> add(QueueKeys parent, String parentId, String parentTenant, String lockToken, long fencingToken,
            List<FlowJob> children, String traceParent);

    /**
     * Parks a running job until its children ended, fenced.
     *
     * @param queue the job's queue, not {@code null}
     * @param jobId the job's id, not {@code null}
     * @param lockToken the run's lock token
     * @param fencingToken the run's fencing token
     * @return {@code true} when parked, {@code false} when no child is pending (the job stays active); fails with
     *         {@link UnrecoverableJobException} when a child whose failure fails its parent failed, and as
     *         {@link #add} for a refused write
     */
    Uni<Boolean> moveToWaitingChildren(QueueKeys queue, String jobId, String lockToken, long fencingToken);

    /**
     * @param parent the job's queue, not {@code null}
     * @param parentId the job's id, not {@code null}
     * @return child job key -> return value (JSON) of each completed child; empty when none
     */
    Uni<Map<String, String>> childrenValues(QueueKeys parent, String parentId);

    /**
     * @param parent the job's queue, not {@code null}
     * @param parentId the job's id, not {@code null}
     * @return child job key -> reason of each failed child that the job ignored
     *         ({@link dev.fencedqueue.queue.ParentPolicy#IGNORE}); empty when none
     */
    Uni<Map<String, String>> failedChildren(QueueKeys parent, String parentId);
}
