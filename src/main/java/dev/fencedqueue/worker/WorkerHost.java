package dev.fencedqueue.worker;

import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

import dev.fencedqueue.events.CommittedEvents;
import dev.fencedqueue.events.FencedAppend;
import dev.fencedqueue.queue.QueueException;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.tracing.JobTracing;

/**
 * What a {@link Worker}'s attempts see of it ({@link AttemptHost}).
 *
 * @param workerId the worker's id
 * @param events the fenced append to the worker's queue's job event streams
 * @param committed the reader of what a run may continue, in the worker's queue
 * @param children the children of its jobs (flows)
 * @param keys the worker's queue's key layout
 * @param lane the worker's lane ({@link Worker#lane()})
 * @param tracing the spans of jobs
 * @param onOwnershipLost what the worker does when a fenced write of a job was refused ({@link Worker#ownershipLost})
 */
record WorkerHost(String workerId, FencedAppend events, CommittedEvents committed, ChildJobs children, QueueKeys keys,
        Executor lane, JobTracing tracing, BiConsumer<ActiveJob, QueueException> onOwnershipLost) implements AttemptHost {

    @Override
    public void ownershipLost(ActiveJob job, QueueException reason) {
        onOwnershipLost.accept(job, reason);
    }
}
