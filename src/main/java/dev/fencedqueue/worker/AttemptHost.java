package dev.fencedqueue.worker;

import java.util.concurrent.Executor;

import dev.fencedqueue.events.CommittedEvents;
import dev.fencedqueue.events.FencedAppend;
import dev.fencedqueue.queue.QueueException;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.tracing.JobTracing;

/** What an attempt's {@link JobContext} uses of the worker that runs it, and nothing more. */
interface AttemptHost {

    /** @return the worker's id */
    String workerId();

    /** @return the fenced append to the worker's queue's job event streams */
    FencedAppend events();

    /** @return the children of its jobs (flows): adding them, waiting for them, reading their results */
    ChildJobs children();

    /** @return the worker's queue's key layout */
    QueueKeys keys();

    /** @return the reader of what a run may continue, in the worker's queue */
    CommittedEvents committed();

    /**
     * @return the executor through which the writes of the worker's jobs are sent: tasks run on the worker's context,
     *         one at a time, in the order they were submitted, whatever thread submits them
     */
    Executor lane();

    /**
     * Tells the worker that a fenced write of {@code job} was refused: the worker no longer owns it and cancels it.
     *
     * @param job the job, must not be {@code null}
     * @param reason the refusal, must not be {@code null}
     */
    void ownershipLost(ActiveJob job, QueueException reason);

    /** @return the spans of jobs, for the spans an attempt starts (adding children) */
    JobTracing tracing();
}
