package dev.fencedqueue.worker;

import java.util.concurrent.atomic.AtomicLong;

import org.jboss.logging.Logger;

/** A worker's counters (read by {@link WorkerStats} and {@link WorkerMetrics}) and the log lines that go with them. */
final class WorkerCounters {

    private static final Logger LOG = Logger.getLogger(Worker.class);

    private final String workerId;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong rejectedWrites = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final AtomicLong stalled = new AtomicLong();
    private volatile AttemptTimings timings = AttemptTimings.NONE;
    private final SlotTally slots;

    WorkerCounters(String workerId, SlotTally slots) {
        this.workerId = workerId;
        this.slots = slots;
    }

    /** @param timings where the attempts' timings go from now on */
    void timings(AttemptTimings timings) {
        this.timings = timings;
    }

    /** Times how long a job waited before its first attempt (the Redis clock: its add, its activation). */
    void started(ActiveJob job) {
        Long processedOn = job.job().processedOn();
        if (job.job().attemptsStarted() == 1 && processedOn != null) {
            timings.waited(job.job().tenant(), Math.max(0, processedOn - job.job().timestamp() - job.job().delay()));
        }
    }

    /** Counts how an attempt's end was written: {@code code} is the finishing script's answer. */
    void finished(ActiveJob job, Throwable failure, long code) {
        slots.ended(job);
        timings.ran(code < 0 ? "zombie" : failure == null ? "result" : "failed", job.runningNanos());
        if (code < 0) {
            rejectedWrites.incrementAndGet();
            LOG.warnf("worker %s: BLOCKED %s of job %s (code %d): a newer run owns it", workerId,
                    failure == null ? "completion" : "failure", job.id(), code);
        } else if (failure == null) {
            completed.incrementAndGet();
        } else {
            failed.incrementAndGet();
            LOG.infof("worker %s: job %s attempt %d failed (%s): %s", workerId, job.id(), job.job().attemptsStarted(),
                    code == 1 ? "will retry" : "no attempts left", JobFinisher.reason(failure));
        }
    }

    /** Counts a fenced write that Redis refused. */
    void rejected(ActiveJob job, String why) {
        rejectedWrites.incrementAndGet();
        LOG.warnf("worker %s: BLOCKED write for job %s: %s", workerId, job.id(), why);
    }

    /** Times an attempt that handed its job back until a rate limit outside the queue admits it. */
    void rateLimited(ActiveJob job) {
        slots.ended(job);
        timings.ran("rate-limited", job.runningNanos());
    }

        /** Counts an attempt the worker cancelled, and times it by why. */
    void cancelled(ActiveJob job, CancelReason reason) {
        slots.ended(job);
        cancelled.incrementAndGet();
        timings.ran(switch (reason) {
            case OWNERSHIP_LOST, LOCK_EXPIRED -> "zombie";
            case SHUTDOWN -> "handed-back";
            case REVOKED -> "revoked";
            case TIMEOUT -> "failed";
        }, job.runningNanos());
    }

    /** @param jobs how many jobs a stalled-job check of this worker found stalled */
    void stalled(int jobs) {
        stalled.addAndGet(jobs);
    }

    WorkerStats stats(int active) {
        return new WorkerStats(completed.get(), failed.get(), rejectedWrites.get(), cancelled.get(), active,
                stalled.get());
    }
}
