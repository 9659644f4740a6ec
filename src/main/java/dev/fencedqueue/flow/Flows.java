package dev.fencedqueue.flow;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.worker.ChildJobs;
import dev.fencedqueue.worker.UnrecoverableJobException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Flows (BullMQ's parent and child jobs) over all queues, as a worker's jobs use them: {@link FlowProducer} adds a
 * parent with its children (and a running job's children), {@link FlowRelay} delivers each child's ending to its
 * parent and finishes what a crash left half done, {@link FlowReader} reads a parent's children. A flow may span
 * queues, and so Redis Cluster nodes: each step is one script in one queue, and what links two steps (a child to add,
 * a child's ending) is written in the first step's script and removed only after the second, so a crash between them
 * delays a flow but never breaks it. This class is the {@link ChildJobs} of every worker's jobs: it adds a running
 * job's children through the producer and reads them through the reader.
 */
@ApplicationScoped
public class Flows implements ChildJobs {

    private final FlowProducer producer;
    private final FlowReader reader;

    /**
     * @param producer adds flows, not {@code null}
     * @param reader reads a parent's children, not {@code null}
     */
    public Flows(FlowProducer producer, FlowReader reader) {
        this.producer = producer;
        this.reader = reader;
    }

    @Override
    public Uni<Integer> add(QueueKeys parent, String parentId, String parentTenant, String lockToken, long fencingToken,
            List<FlowJob> children, String traceParent) {
        return producer.addChildren(parent, parentId, parentTenant, lockToken, fencingToken, children, traceParent);
    }

    /** {@inheritDoc} A {@link ChildFailedException} becomes the {@link UnrecoverableJobException} that fails the run. */
    @Override
    public Uni<Boolean> moveToWaitingChildren(QueueKeys queue, String jobId, String lockToken, long fencingToken) {
        return producer.moveToWaitingChildren(queue, jobId, lockToken, fencingToken)
                .onFailure(ChildFailedException.class).transform(failure -> new UnrecoverableJobException(
                        Failures.describe(failure), failure));
    }

    @Override
    public Uni<Map<String, String>> childrenValues(QueueKeys parent, String parentId) {
        return reader.childrenValues(parent, parentId);
    }

    @Override
    public Uni<Map<String, String>> failedChildren(QueueKeys parent, String parentId) {
        return reader.failedChildren(parent, parentId);
    }
}
