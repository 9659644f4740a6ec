package dev.fencedqueue.worker;

import java.util.concurrent.Executor;

import dev.fencedqueue.queue.FlowRelay;
import dev.fencedqueue.queue.QueueKeys;
import org.jboss.logging.Logger;

/**
 * How a worker's job leaves it: its attempt's outcome written ({@link JobFinisher}, which activates the worker's next
 * jobs in the same round trip), or its pipeline cancelled (revoked, ownership lost, a lock that could not be renewed),
 * and then its slot freed. Confined to the worker's context.
 */
final class JobEnding {

    private static final Logger LOG = Logger.getLogger(JobEnding.class);

    private final String workerId;
    private final ActiveJobs active;
    private final WorkerCounters counters;
    private final JobFinisher finisher;
    private final JobFetcher fetcher;
    private final Executor onContext;
    private final FlowRelay relay;
    private final QueueKeys keys;

    /**
     * @param workerId the worker's id, for logs
     * @param active the worker's running jobs and slots
     * @param counters the worker's counters
     * @param finisher writes completions and failures
     * @param fetcher takes the next jobs a finishing write activated, and fetches when a slot frees
     * @param onContext runs tasks on the worker's context
     * @param relay delivers a flow's child's ending to its parent
     * @param keys the worker's queue's key layout
     */
    JobEnding(String workerId, ActiveJobs active, WorkerCounters counters, JobFinisher finisher, JobFetcher fetcher,
            Executor onContext, FlowRelay relay, QueueKeys keys) {
        this.workerId = workerId;
        this.active = active;
        this.counters = counters;
        this.finisher = finisher;
        this.fetcher = fetcher;
        this.onContext = onContext;
        this.relay = relay;
        this.keys = keys;
    }

    /**
     * Writes the end of an attempt whose pipeline ended: its completion, or its failure (a retry or the end); a
     * failure that means the worker no longer owns the job cancels it instead. Nothing happens for a job already
     * finishing or abandoned.
     *
     * @param job the job
     * @param result the processor's result when it succeeded
     * @param failure why it failed, or {@code null} when it succeeded
     */
    void finish(ActiveJob job, Object result, Throwable failure) {
        if (job.isFinishing() || job.isAbandoned()) {
            return;
        }
        if (failure != null && WorkerJobContext.meansOwnershipLost(failure)) {
            cancel(job, CancelReason.OWNERSHIP_LOST);
            return;
        }
        if (failure instanceof WaitingChildrenException) {
            // Parked by its own fenced write: nothing more to write, the slot is free.
            release(job, true);
            return;
        }
        active.finishing(job);
        int fetch = active.free();
        active.reserve(fetch);
        String lockPrefix = JobFetcher.lockPrefix();
        long sentAt = System.nanoTime();
        JobFinisher.Written written = new JobFinisher.Written() {
            @Override
            public void written(JobFinisher.Outcome outcome) {
                active.unreserve(fetch);
                counters.finished(job, failure, outcome.code());
                release(job, false);
                if (outcome.code() == 0 && job.job().parentKey() != null) {
                    relay.deliver(keys, job.id()).subscribe().with(ignored -> {
                    }, deliveryFailure -> LOG.debugf("job %s: its parent will learn its ending at the next sweep: %s",
                            job.id(), deliveryFailure.getMessage()));
                }
                fetcher.handle(outcome.next(), sentAt);
                fetcher.pump();
            }

            @Override
            public void failed(Throwable writeFailure) {
                active.unreserve(fetch);
                LOG.warnf("worker %s could not record the end of job %s; its lock will expire and it will run again: %s",
                        workerId, job.id(), writeFailure.getMessage());
                release(job, true);
            }
        };
        if (failure == null) {
            finisher.complete(job, result, fetch, lockPrefix, written);
        } else {
            finisher.fail(job, failure, fetch, lockPrefix).emitOn(onContext).subscribe().with(written::written,
                    written::failed);
        }
    }

    /**
     * Cancels a job's pipeline (its LLM call closes) and frees its slot; nothing for a job already cancelled.
     *
     * @param job the job
     * @param reason why
     */
    void cancel(ActiveJob job, CancelReason reason) {
        if (job.isCancelled()) {
            return;
        }
        job.cancel(reason);
        counters.cancelled(job, reason);
        release(job, true);
    }

    /**
     * Frees a job's slot.
     *
     * @param job the job
     * @param refill whether to look for a next job at once (a completion brings its next jobs itself)
     */
    void release(ActiveJob job, boolean refill) {
        if (active.remove(job) && refill) {
            fetcher.requestFetch();
        }
    }
}
