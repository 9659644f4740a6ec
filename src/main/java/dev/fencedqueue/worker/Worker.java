package dev.fencedqueue.worker;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.LuaScripts;
import dev.fencedqueue.queue.QueueException;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import org.jboss.logging.Logger;

/**
 * Runs the jobs of one queue with a fixed number of slots ({@code concurrency}). An idle worker blocks on
 * the queue's marker ({@code BZPOPMIN}, no polling) and activates jobs with {@code moveToActive}; a timer
 * fires at the due time of the earliest delayed job. Each job runs as a {@code Uni} pipeline with one
 * cancellation handle; one ticker renews all locks and checks all fencing tokens in one round trip and
 * cancels the pipeline of every job the worker no longer owns, as does a rejected fenced write or a
 * revoke notice. All mutable state lives on one Vert.x context.
 */
public final class Worker {

    private static final Logger LOG = Logger.getLogger(Worker.class);

    private final QueueKeys keys;
    private final JobProcessor processor;
    private final WorkerOptions options;
    private final LuaScripts scripts;
    private final ObjectMapper json;
    private final Vertx vertx;
    private final Context context;
    private final Executor onContext;
    private final int maxStreamLength;
    private final MarkerWaiter markerWaiter;
    private final LockRenewer lockRenewer;
    private final StalledJobChecker stalledJobChecker;
    private final JobFinisher finisher;
    private final JobFetcher fetcher;

    private final Map<String, ActiveJob> active = new ConcurrentHashMap<>();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong rejectedWrites = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private volatile boolean frozen;

    // Confined to the context.
    private boolean running;
    private long renewTimer = -1;
    private long stalledTimer = -1;

    Worker(JobQueue queue, JobProcessor processor, WorkerOptions options, Queues queues, ObjectMapper json, Vertx vertx) {
        this.keys = queue.keys();
        this.processor = processor;
        this.options = options;
        this.scripts = queues.scripts();
        this.json = json;
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        this.onContext = command -> context.runOnContext(ignored -> command.run());
        this.maxStreamLength = queues.maxStreamLength();
        this.markerWaiter = new MarkerWaiter(queues.redis().client(), keys.marker(), options.drainDelay(),
                queues.redis().timeout());
        this.lockRenewer = new LockRenewer(keys, scripts, options.lockDuration().toMillis());
        this.stalledJobChecker = new StalledJobChecker(keys, scripts, options, maxStreamLength);
        this.finisher = new JobFinisher(keys, scripts, json, options.workerId(), maxStreamLength, options.lockDuration());
        this.fetcher = new JobFetcher(keys, scripts, options, maxStreamLength, vertx, onContext, markerWaiter,
                () -> running && !frozen && active.size() < options.concurrency(), this::run);
    }

    /** @return this worker's id */
    public String id() {
        return options.workerId();
    }

    /** @return the name of the queue this worker runs */
    public String queue() {
        return keys.queue();
    }

    /** @return the ids of the jobs running on this worker now */
    public Set<String> activeJobIds() {
        return Set.copyOf(active.keySet());
    }

    /** @return this worker's counters */
    public WorkerStats stats() {
        return new WorkerStats(completed.get(), failed.get(), rejectedWrites.get(), cancelled.get(), active.size());
    }

    /** @return whether the worker has been started and not closed */
    public boolean isRunning() {
        return running;
    }

    /**
     * Test and chaos-drill hook: while frozen, the worker fetches no job, renews no lock (so checks no
     * fencing token) and ignores revoke notices, as if paused by GC or cut from Redis; its running jobs go
     * on and their writes still reach Redis, where they are rejected once another run owns the job.
     *
     * @param frozen {@code true} to freeze, {@code false} to thaw
     */
    public void freeze(boolean frozen) {
        this.frozen = frozen;
        if (!frozen) {
            context.runOnContext(ignored -> fetcher.requestFetch());
        }
    }

    /** Starts fetching jobs, renewing locks and checking for stalled jobs. Calling it again does nothing. */
    public void start() {
        context.runOnContext(ignored -> {
            if (running) {
                return;
            }
            running = true;
            renewTimer = vertx.setPeriodic(options.lockRenewInterval().toMillis(), id -> renewLocks());
            stalledTimer = vertx.setPeriodic(options.stalledInterval().toMillis(), id -> checkStalled());
            checkStalled();
            fetcher.requestFetch();
            LOG.infof("worker %s started on queue %s (concurrency %d, lock %s, renew every %s)", id(), queue(),
                    options.concurrency(), options.lockDuration(), options.lockRenewInterval());
        });
    }

    /**
     * Stops the worker: no more jobs are fetched, and the pipelines of running jobs are cancelled (their
     * LLM calls close). Their jobs stay active in Redis until the stalled-job check hands them to another
     * worker.
     *
     * @return completes once the worker stopped
     */
    public Uni<Void> close() {
        return Uni.createFrom().<Void>emitter(emitter -> context.runOnContext(ignored -> {
            running = false;
            cancelTimer(renewTimer);
            cancelTimer(stalledTimer);
            fetcher.stop();
            List.copyOf(active.values()).forEach(job -> cancel(job, CancelReason.SHUTDOWN));
            markerWaiter.close().subscribe().with(v -> emitter.complete(null), emitter::fail);
        }));
    }

    /** Called when Redis tells that a job's epoch {@code token} was revoked (aborted or handed to another worker). */
    void revoked(String jobId, long token) {
        context.runOnContext(ignored -> {
            ActiveJob job = active.get(jobId);
            if (job != null && job.fencingToken() <= token && !frozen) {
                LOG.infof("worker %s: job %s (token %d) was revoked; cancelling it", id(), jobId, job.fencingToken());
                cancel(job, CancelReason.REVOKED);
            }
        });
    }

    /** Called when a fenced write was rejected: the worker no longer owns the job, so it stops at once. */
    void ownershipLost(ActiveJob job, QueueException reason) {
        rejectedWrites.incrementAndGet();
        LOG.warnf("worker %s: BLOCKED write for job %s: %s", id(), job.id(), reason.getMessage());
        context.runOnContext(ignored -> cancel(job, CancelReason.OWNERSHIP_LOST));
    }

    LuaScripts scripts() {
        return scripts;
    }

    int maxStreamLength() {
        return maxStreamLength;
    }

    // ---- running jobs ---------------------------------------------------------------------------------

    private void run(Job job, String lockToken, long sentAt) {
        if (!this.running) {
            LOG.infof("worker %s closed while activating job %s; the stalled-job check will hand it on", id(), job.id());
            return;
        }
        ActiveJob running = new ActiveJob(job, lockToken, sentAt + options.lockDuration().toNanos());
        active.put(job.id(), running);
        WorkerJobContext jobContext = new WorkerJobContext(this, running, keys, json);
        running.pipeline = Uni.createFrom().deferred(() -> processor.process(jobContext))
                .emitOn(onContext)
                .subscribe().with(result -> finish(running, result, null), failure -> finish(running, null, failure));
    }

    private void finish(ActiveJob job, Object result, Throwable failure) {
        if (job.isCancelled() || job.finishing) {
            return;
        }
        if (failure != null && WorkerJobContext.meansOwnershipLost(failure)) {
            cancel(job, CancelReason.OWNERSHIP_LOST);
            return;
        }
        job.finishing = true;
        Uni<Long> write = failure == null ? finisher.complete(job, result) : finisher.fail(job, failure);
        write.emitOn(onContext).subscribe().with(code -> {
            if (code < 0) {
                rejectedWrites.incrementAndGet();
                LOG.warnf("worker %s: BLOCKED %s of job %s (code %d): a newer run owns it", id(),
                        failure == null ? "completion" : "failure", job.id(), code);
            } else if (failure == null) {
                completed.incrementAndGet();
            } else {
                failed.incrementAndGet();
                LOG.infof("worker %s: job %s attempt %d failed (%s): %s", id(), job.id(), job.job.attemptsStarted(),
                        code == 1 ? "will retry" : "no attempts left", JobFinisher.reason(failure));
            }
            release(job);
        }, writeFailure -> {
            LOG.warnf("worker %s could not record the end of job %s; its lock will expire and it will run again: %s",
                    id(), job.id(), writeFailure.getMessage());
            release(job);
        });
    }

    private void cancel(ActiveJob job, CancelReason reason) {
        if (job.isCancelled()) {
            return;
        }
        job.cancelled.complete(reason);
        cancelled.incrementAndGet();
        if (job.pipeline != null) {
            job.pipeline.cancel();
        }
        release(job);
    }

    private void release(ActiveJob job) {
        if (active.remove(job.id(), job)) {
            fetcher.requestFetch();
        }
    }

    // ---- timers ---------------------------------------------------------------------------------------

    private void renewLocks() {
        if (frozen || active.isEmpty()) {
            return;
        }
        List<ActiveJob> jobs = List.copyOf(active.values());
        long sentAt = System.nanoTime();
        lockRenewer.renew(jobs).emitOn(onContext).subscribe().with(lost -> {
            for (ActiveJob job : jobs) {
                Long code = lost.get(job.id());
                if (code == null) {
                    job.lockValidUntil = sentAt + options.lockDuration().toNanos();
                } else if (!job.finishing && !job.isCancelled()) {
                    LOG.warnf("worker %s: lost job %s (code %d); cancelling its pipeline", id(), job.id(), code);
                    cancel(job, CancelReason.OWNERSHIP_LOST);
                }
            }
        }, failure -> {
            long now = System.nanoTime();
            for (ActiveJob job : jobs) {
                if (now - job.lockValidUntil > 0) {
                    LOG.warnf("worker %s: lock of job %s expired without renewal (%s); cancelling it", id(), job.id(),
                            failure.getMessage());
                    cancel(job, CancelReason.LOCK_EXPIRED);
                }
            }
        });
    }

    private void checkStalled() {
        stalledJobChecker.check().subscribe().with(
                stalled -> stalled.forEach((jobId, outcome) -> LOG.warnf("queue %s: job %s stalled, moved to %s",
                        queue(), jobId, outcome)),
                failure -> LOG.debugf("stalled-job check of queue %s failed: %s", queue(), failure.getMessage()));
    }

    private void cancelTimer(long timer) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }
}
