package dev.fencedqueue.telemetry;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.Job;
import org.jboss.logging.Logger;

/**
 * A worker's counters (read by {@link WorkerStats} and {@link WorkerMetrics}), the timings of its attempts
 * ({@link AttemptTimings}) and the log lines that go with them. Thread-safe.
 */
public final class WorkerCounters {

    private final String workerId;
    private final IntSupplier active;
    private final Logger log;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong rejectedWrites = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final AtomicLong stalled = new AtomicLong();
    private volatile AttemptTimings timings = AttemptTimings.NONE;

    /**
     * @param workerId the worker's id, for the log lines, not {@code null}
     * @param active how many jobs run on the worker now, thread-safe, not {@code null}
     * @param log where the worker's lines go, not {@code null}
     */
    public WorkerCounters(String workerId, IntSupplier active, Logger log) {
        this.workerId = workerId;
        this.active = active;
        this.log = log;
    }

    /** @param timings where the attempts' timings go from now on */
    void timings(AttemptTimings timings) {
        this.timings = timings;
    }

    /**
     * Times how long a job waited before its first attempt (the Redis clock: its add, its activation).
     *
     * @param job the job as its attempt was activated, not {@code null}
     */
    public void started(Job job) {
        Long processedOn = job.processedOn();
        if (job.attemptsStarted() == 1 && processedOn != null) {
            timings.waited(job.tenant(), Math.max(0, processedOn - job.timestamp() - job.delay()));
        }
    }

    /**
     * Counts how an attempt's end was written.
     *
     * @param job the job as its attempt was activated, not {@code null}
     * @param runningNanos how long the attempt ran, from its activation, ns
     * @param failure why it failed, {@code null} when it completed
     * @param code the finishing script's answer: 0 ended, 1 failed and retried, negative when a newer run owns the job
     */
    public void finished(Job job, long runningNanos, Throwable failure, long code) {
        timings.ran(code < 0 ? "zombie" : failure == null ? "result" : "failed", runningNanos);
        if (code < 0) {
            rejectedWrites.incrementAndGet();
            log.warnf("worker %s: BLOCKED %s of job %s (code %d): a newer run owns it", workerId,
                    failure == null ? "completion" : "failure", job.id(), code);
        } else if (failure == null) {
            completed.incrementAndGet();
        } else {
            failed.incrementAndGet();
            log.infof("worker %s: job %s attempt %d failed (%s): %s", workerId, job.id(), job.attemptsStarted(),
                    code == 1 ? "will retry" : "no attempts left", Failures.reason(failure));
        }
    }

    /**
     * Counts a fenced write that Redis refused.
     *
     * @param jobId the job's id, not {@code null}
     * @param why the refusal, in words
     */
    public void rejected(String jobId, String why) {
        rejectedWrites.incrementAndGet();
        log.warnf("worker %s: BLOCKED write for job %s: %s", workerId, jobId, why);
    }

    /**
     * Times an attempt that handed its job back until a rate limit outside the queue admits it.
     *
     * @param runningNanos how long the attempt ran, from its activation, ns
     */
    public void rateLimited(long runningNanos) {
        timings.ran("rate-limited", runningNanos);
    }

    /**
     * Counts an attempt the worker cancelled, and times it by how it ended.
     *
     * @param outcome how it ended, for {@link AttemptTimings#ran}: {@code zombie}, {@code handed-back}, {@code revoked}
     *        or {@code failed}
     * @param runningNanos how long the attempt ran, from its activation, ns
     */
    public void cancelled(String outcome, long runningNanos) {
        cancelled.incrementAndGet();
        timings.ran(outcome, runningNanos);
    }

    /** @param jobs how many jobs a stalled-job check of this worker found stalled */
    public void stalled(int jobs) {
        stalled.addAndGet(jobs);
    }

    /** @return the counters now */
    public WorkerStats stats() {
        return new WorkerStats(completed.get(), failed.get(), rejectedWrites.get(), cancelled.get(), active.getAsInt(),
                stalled.get());
    }
}
