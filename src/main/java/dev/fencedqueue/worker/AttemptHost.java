package dev.fencedqueue.worker;

import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

import dev.fencedqueue.events.CommittedEvents;
import dev.fencedqueue.events.FencedAppend;
import dev.fencedqueue.queue.QueueException;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.tracing.JobTracing;

/**
 * What an attempt's {@link JobContext} uses of the worker that runs it, and nothing more.
 *
 * @param workerId the worker's id
 * @param events the fenced append to the worker's queue's job event streams
 * @param committed the reader of what a run may continue, in the worker's queue
 * @param children the children of its jobs (flows): adding them, waiting for them, reading their results
 * @param keys the worker's queue's key layout
 * @param lane the executor through which the writes of the worker's jobs are sent: tasks run on the worker's context,
 *        one at a time, in the order they were submitted, whatever thread submits them
 * @param tracing the spans of jobs, for the spans an attempt starts (adding children)
 * @param onOwnershipLost what the worker does when a fenced write of a job was refused: it no longer owns the job and
 *        cancels it
 */
record AttemptHost(String workerId, FencedAppend events, CommittedEvents committed, ChildJobs children, QueueKeys keys,
        Executor lane, JobTracing tracing, BiConsumer<ActiveJob, QueueException> onOwnershipLost) {

    /**
     * Tells the worker that a fenced write of {@code job} was refused: the worker no longer owns it and cancels it.
     *
     * @param job the job, must not be {@code null}
     * @param reason the refusal, must not be {@code null}
     */
    void ownershipLost(ActiveJob job, QueueException reason) {
        onOwnershipLost.accept(job, reason);
    }
}
