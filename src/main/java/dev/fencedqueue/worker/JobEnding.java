package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.telemetry.WorkerCounters;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import org.jboss.logging.Logger;

/**
 * How a worker's job leaves it: its attempt's outcome written ({@link JobFinisher}, which activates the worker's next
 * jobs in the same round trip), or its pipeline cancelled (revoked, ownership lost, a lock that could not be renewed),
 * or handed back as the worker stops, and then its slot freed. Confined to the worker's context.
 */
final class JobEnding {

    private static final Logger LOG = Logger.getLogger(JobEnding.class);

    private final String workerId;
    private final ActiveJobs active;
    private final WorkerCounters counters;
    private final JobFinisher finisher;
    private final JobFetcher fetcher;
    private final Executor onContext;
    private final BiConsumer<QueueKeys, Job> onEnded;
    private final QueueKeys keys;
    private final SharedConnection redis;
    private final BooleanSupplier stopping;

    /**
     * @param workerId the worker's id, for logs
     * @param active the worker's running jobs and slots
     * @param counters the worker's counters
     * @param finisher writes completions and failures
     * @param fetcher takes the next jobs a finishing write activated, and fetches when a slot frees
     * @param onContext runs tasks on the worker's context
     * @param onEnded told of each job that ended for good (its queue, the job): its completion, or the failure that
     *        used its last attempt, written
     * @param keys the worker's queue's key layout
     * @param redis the shared connection, to read the state of a job whose attempt was revoked
     * @param stopping whether the worker began to stop: an attempt that fails from then on is handed back
     */
    JobEnding(String workerId, ActiveJobs active, WorkerCounters counters, JobFinisher finisher, JobFetcher fetcher,
            Executor onContext, BiConsumer<QueueKeys, Job> onEnded, QueueKeys keys, SharedConnection redis,
            BooleanSupplier stopping) {
        this.redis = redis;
        this.stopping = stopping;
        this.workerId = workerId;
        this.active = active;
        this.counters = counters;
        this.finisher = finisher;
        this.fetcher = fetcher;
        this.onContext = onContext;
        this.onEnded = onEnded;
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
            job.span().end("waiting-children", "a flow's parent waits for its children");
            release(job, true);
            return;
        }
        if (failure instanceof RateLimitedException limited) {
            rateLimited(job, limited);
            return;
        }
        if (failure != null && stopping.getAsBoolean() && !(failure instanceof UnrecoverableJobException)
                && !(failure instanceof JobTimeoutException)) {
            // The instance stops: what failed now (an LLM stream its own stopping HTTP server closed, a connection cut
            // on the way out) is the stop's doing, not the attempt's. The job goes back as the others do.
            LOG.infof("worker %s: job %s failed while the worker stops (%s); handing it back instead", workerId,
                    job.id(), Failures.describe(failure));
            handBack(job).subscribe().with(code -> {
            }, ignored -> {
            });
            return;
        }
        active.finishing(job);
        int fetch = active.free();
        active.reserve(fetch);
        String lockPrefix = JobFetcher.lockPrefix();
        long sentAt = System.nanoTime();
        CompletionBatcher.Written written = new CompletionBatcher.Written() {
            @Override
            public void written(long code, Activation next) {
                active.unreserve(fetch);
                active.slotEnded(job);
                counters.finished(job.job(), job.runningNanos(), failure, code);
                ended(job, failure, code);
                release(job, false);
                if (code == 0) {
                    onEnded.accept(keys, job.job());
                }
                fetcher.handle(next, sentAt);
                fetcher.pump();
            }

            @Override
            public void failed(Throwable writeFailure) {
                active.unreserve(fetch);
                LOG.warnf("worker %s could not record the end of job %s; its lock will expire and it will run again: %s",
                        workerId, job.id(), Failures.describe(writeFailure));
                job.span().end("unrecorded", "its end could not be written; the job runs again once its lock expires: "
                        + Failures.describe(writeFailure));
                release(job, true);
            }
        };
        if (failure == null) {
            finisher.complete(job, result, fetch, lockPrefix, written);
        } else {
            finisher.fail(job, failure, fetch, lockPrefix).emitOn(onContext).subscribe().with(
                    outcome -> written.written(outcome.code(), outcome.next()), written::failed);
        }
    }

    /**
     * Hands back a job whose run cannot go on yet, a rate limit outside the queue being spent: it waits in the delayed
     * set for as long as the limit asks, without counting an attempt, and its slot is free meanwhile. A hand-back that
     * could not be written leaves the job to the stalled-job check, as a lost lock does.
     */
    private void rateLimited(ActiveJob job, RateLimitedException limited) {
        active.finishing(job);
        active.slotEnded(job);
        counters.rateLimited(job.runningNanos());
        finisher.handBack(job, limited.delay()).emitOn(onContext).onFailure().recoverWithItem(-1L).subscribe()
                .with(code -> {
                    job.span().end(code < 0 ? "zombie" : "rate-limited", code < 0
                            ? "the hand-back after a rate limit was not written (code " + code + ")"
                            : limited.getMessage());
                    release(job, true);
                });
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
        active.slotEnded(job);
        counters.cancelled(timing(reason), job.runningNanos());
        switch (reason) {
            case OWNERSHIP_LOST -> job.span().end("zombie", "a newer run owns the job: a fenced write or the lock "
                    + "renewal was refused");
            case LOCK_EXPIRED -> job.span().end("zombie", "the lock could not be renewed within its duration");
            case SHUTDOWN -> job.span().end("handed-back", "the instance stopped");
            case TIMEOUT -> job.span().failed(new JobTimeoutException(job.id(),
                    Duration.ofMillis(job.job().timeout())), job.job().attemptsMade() + 1 < job.job().attempts());
            case REVOKED -> revoked(job);
        }
        release(job, true);
    }

    /** Ends the span of an attempt whose end the finishing script wrote ({@code code}: its answer). */
    /**
     * Hands every running job back to the queue at once, as the worker stops: each pipeline is cancelled (its LLM call
     * closes) and the job returns to waiting without counting an attempt; jobs already finishing or cancelled are left
     * to their own ends.
     *
     * @return completes once every hand-back was answered or failed (a failed one is logged in the job's span; the
     *         stalled-job check then takes the job over)
     */
    Uni<Void> handBackAll() {
        List<Uni<Long>> handBacks = new ArrayList<>();
        for (ActiveJob job : active.snapshot()) {
            if (!job.isFinishing() && !job.isCancelled()) {
                handBacks.add(handBack(job));
            }
        }
        return handBacks.isEmpty() ? Uni.createFrom().voidItem()
                : Uni.join().all(handBacks).andCollectFailures().replaceWithVoid();
    }

    /**
     * Hands one job back as the worker stops: its pipeline cancelled (if it still runs), the job back to waiting
     * without counting an attempt, then its slot freed.
     *
     * @return the hand-back, to subscribe to once: its code ({@code -1} when it could not be written: the stalled-job
     *         check takes over), once the slot is free
     */
    private Uni<Long> handBack(ActiveJob job) {
        active.finishing(job);
        job.cancel(CancelReason.SHUTDOWN);
        active.slotEnded(job);
        counters.cancelled(timing(CancelReason.SHUTDOWN), job.runningNanos());
        return finisher.handBack(job, Duration.ZERO).emitOn(onContext)
                .invoke(code -> LOG.infof("worker %s handed job %s back to the queue (code %d)", workerId, job.id(), code))
                .onFailure().recoverWithItem(-1L)
                .invoke(code -> job.span().end("handed-back", code < 0
                        ? "the instance stopped; the hand-back was not written (code " + code + ")"
                        : "the instance stopped"))
                .eventually(() -> release(job, false));
    }

    /** @return how an attempt cancelled for {@code reason} ended, as its timing says it ({@code fq_job_processing}) */
    private static String timing(CancelReason reason) {
        return switch (reason) {
            case OWNERSHIP_LOST, LOCK_EXPIRED -> "zombie";
            case SHUTDOWN -> "handed-back";
            case REVOKED -> "revoked";
            case TIMEOUT -> "failed";
        };
    }

    private static void ended(ActiveJob job, Throwable failure, long code) {
        if (code < 0) {
            String refused = "a newer run owns the job (the finishing script answered " + code + ")";
            job.span().refused(failure == null ? "completion" : "failure", refused);
            job.span().end("zombie", refused);
        } else if (failure == null) {
            job.span().end("result", null);
        } else {
            job.span().failed(failure, code == 1);
        }
    }

    /**
     * Ends the span of an attempt the worker was told to stop: {@code aborted} when the job was aborted, else
     * {@code zombie} (the stalled-job check gave it to another worker), as the job's state says. The state is read only
     * for a span that is exported.
     */
    private void revoked(ActiveJob job) {
        String takenOver = "the stalled-job check gave the job to another worker";
        if (!job.span().isRecording()) {
            job.span().end("zombie", takenOver);
            return;
        }
        redis.send(Request.cmd(Command.HGET).arg(keys.job(job.id())).arg("state")).subscribe().with(
                state -> {
                    if (state != null && JobState.ABORTED.value().equals(state.toString())) {
                        job.span().end("aborted", "the job was aborted");
                    } else {
                        job.span().end("zombie", takenOver);
                    }
                },
                failure -> job.span().end("zombie", takenOver));
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
