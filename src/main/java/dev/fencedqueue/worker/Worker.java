package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.Failures;
import dev.fencedqueue.events.CommittedEvents;
import dev.fencedqueue.events.FencedAppend;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.QueueException;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.telemetry.AttemptSpan;
import dev.fencedqueue.telemetry.WorkerCounters;
import dev.fencedqueue.telemetry.WorkerStats;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.WorkerConfig.ShutdownMode;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import org.jboss.logging.Logger;

/**
 * Runs the jobs of one queue with a fixed number of slots ({@code concurrency}). {@link JobFetcher} brings
 * jobs in (marker wake-ups, delayed-job timers, no polling); a completion activates the next jobs in the
 * same round trip. Each job runs as a {@code Uni} pipeline with one cancellation handle; one ticker renews
 * all locks and checks all fencing tokens in one round trip and cancels the pipeline of every job the
 * worker no longer owns, as does a rejected fenced write or a revoke notice. All mutable state lives on
 * one Vert.x context; a blocking processor's attempts run on threads of their own (see {@link JobProcessor}).
 */
public final class Worker {

    /**
     * What the features beside a worker do (flows, job schedulers: the worker manager makes it from their listeners),
     * each called on the worker's context and none blocking.
     *
     * @param started run once the worker started
     * @param stopping run as it begins to stop
     * @param ended told of each job that ended for good: its completion, or the failure that used its last attempt,
     *        written (the job's queue, the job as its attempt was activated); starts what follows in the background
     * @param stalledChecked run after each stalled-job check of the queue (found jobs or not, succeeded or failed);
     *        the check's result is logged once its {@code Uni} completes
     */
    record Hooks(Consumer<Worker> started, Consumer<Worker> stopping, BiConsumer<QueueKeys, Job> ended,
            Function<QueueKeys, Uni<Void>> stalledChecked) {
    }

    private static final Logger LOG = Logger.getLogger(Worker.class);

    private final QueueKeys keys;
    private final JobTracing tracing;
    /** How long a Redis command may take ({@link SharedConnection#timeout()}). */
    private final Duration commandTimeout;
    private final JobProcessor processor;
    private final ExecutorService blockingExecutor;
    private final WorkerOptions options;
    private final ObjectMapper json;
    private final Vertx vertx;
    private final Context context;
    private final Executor onContext;
    private final MarkerWaiter markerWaiter;
    private final LockRenewer lockRenewer;
    private final StalledJobChecker stalledJobChecker;
    private final JobFetcher fetcher;
    private final JobEnding ending;
    private final AttemptHost host;
    private final Hooks hooks;

    private final ActiveJobs active;
    private final WorkerCounters counters;
    private volatile boolean frozen;
    private volatile boolean running;
    /** Set as {@link #close} is called, before its steps run on the context: an attempt failing from then on is the stop's. */
    private volatile boolean stopping;

    // Confined to the context.
    private boolean closing;
    private boolean paused;
    private long renewTimer = -1;
    private long stalledTimer = -1;

    /**
     * @param keys the key layout of the queue it runs
     * @param processor the processor whose jobs it runs
     * @param blockingExecutor where a blocking processor's attempts run, {@code null} for one that does not block
     * @param options its options
     * @param hooks what the features beside it do as it starts and stops, as its jobs end and after its stalled-job
     *        checks
     * @param children what its jobs use of flows
     * @param scripts the script registry
     * @param redis the shared connection, on whose event loop the worker lives
     * @param json Jackson: a job's data, result and options
     * @param tracing the spans of jobs
     * @param archive where finished jobs go once Redis no longer keeps them ({@link JobArchive#NONE} when nowhere),
     *        which a run reads what it continues from
     * @param maxStreamLength the job event stream's maximum length, entries
     * @param maxQueueEvents the queue event stream's maximum length, entries
     */
    Worker(QueueKeys keys, JobProcessor processor, ExecutorService blockingExecutor, WorkerOptions options,
            Hooks hooks, ChildJobs children, LuaScripts scripts, SharedConnection redis, ObjectMapper json,
            JobTracing tracing, JobArchive archive, int maxStreamLength, int maxQueueEvents) {
        this.keys = keys;
        this.tracing = tracing;
        this.commandTimeout = redis.timeout();
        this.processor = processor;
        this.blockingExecutor = blockingExecutor;
        this.options = options;
        this.json = json;
        this.context = redis.context(); // the shared connection's event loop: no thread hop per command
        this.vertx = context.owner();
        this.onContext = command -> context.runOnContext(ignored -> command.run());
        this.markerWaiter = new MarkerWaiter(redis.client(), keys.marker(),
                MarkerWaiter.connectionName(keys.queue(), options), options.drainDelay(), redis.timeout());
        this.lockRenewer = new LockRenewer(keys, scripts, options.lockDuration().toMillis());
        this.hooks = hooks;
        this.active = new ActiveJobs(options.concurrency());
        this.counters = new WorkerCounters(options.workerId(), active::size, LOG);
        this.stalledJobChecker = new StalledJobChecker(keys, scripts, maxStreamLength, maxQueueEvents, options,
                hooks.stalledChecked(), counters::stalled);
        JobFinisher finisher = new JobFinisher(keys, scripts, json, maxStreamLength, maxQueueEvents, processor, options,
                onContext);
        this.fetcher = new JobFetcher(keys, scripts, maxStreamLength, maxQueueEvents, options, vertx, onContext,
                markerWaiter, active, this::run);
        this.ending = new JobEnding(options.workerId(), active, counters, finisher, fetcher, onContext, hooks.ended(),
                keys, redis, () -> stopping);
        this.host = new AttemptHost(options.workerId(),
                new FencedAppend(keys, scripts, json, maxStreamLength, maxQueueEvents),
                new CommittedEvents(keys, redis, archive, json), children, keys, onContext, tracing,
                this::ownershipLost);
    }

    /** @return this worker's id */
    public String id() {
        return options.workerId();
    }

    /** @return the name of the queue this worker runs */
    public String queue() {
        return keys.queue();
    }

    /** @return the key layout of the queue this worker runs */
    public QueueKeys keys() {
        return keys;
    }

    /** @return the options this worker runs with */
    public WorkerOptions options() {
        return options;
    }

    /** @return the processor whose jobs this worker runs */
    JobProcessor processor() {
        return processor;
    }

    /** @return the ids of the jobs running on this worker now */
    public Set<String> activeJobIds() {
        return active.ids();
    }

    /** @return this worker's counters, which its metrics publish */
    WorkerCounters counters() {
        return counters;
    }

    /**
     * @return the slot time its attempts held since the last call, by tenant id, whole ms (running attempts up to now;
     *         {@link ActiveJobs#takeSlotTime}), taken on the worker's context
     */
    public Uni<Map<String, Long>> takeSlotTime() {
        return onContext(active::takeSlotTime);
    }

    /** @return this worker's counters */
    public WorkerStats stats() {
        return counters.stats();
    }

    /** @return whether the worker has been started and not closed */
    public boolean isRunning() {
        return running;
    }

    /**
     * Test seam, not an API (the tests reach it through their {@code WorkerTestAccess}): while frozen, the worker
     * fetches no job, renews no lock (so checks no fencing token) and ignores revoke notices, as if paused by GC or
     * cut from Redis; its running jobs go on and their writes still reach Redis, where they are rejected once another
     * run owns the job. The stalled-job check goes on, as another instance's would.
     *
     * @param frozen {@code true} to freeze, {@code false} to thaw
     */
    void freeze(boolean frozen) {
        this.frozen = frozen;
        context.runOnContext(ignored -> {
            updateAccepting();
            if (!frozen) {
                fetcher.requestFetch();
            }
        });
    }

    /** Starts fetching jobs, renewing locks and checking for stalled jobs. Calling it again does nothing. */
    public void start() {
        context.runOnContext(ignored -> {
            if (running || closing) {
                return;
            }
            running = true;
            updateAccepting();
            renewTimer = vertx.setPeriodic(options.lockRenewInterval().toMillis(), id -> renewLocks());
            stalledTimer = vertx.setPeriodic(options.stalledInterval().toMillis(), id -> stalledJobChecker.checkAndLog());
            stalledJobChecker.checkAndLog();
            hooks.started().accept(this);
            fetcher.requestFetch();
            LOG.infof("worker %s started on queue %s (concurrency %d, lock %s, renew every %s)", id(), queue(),
                    options.concurrency(), options.lockDuration(), options.lockRenewInterval());
        });
    }

    /**
     * Pauses this worker only (BullMQ's local pause): it takes no new job; running jobs go on.
     *
     * @param waitForActive whether the returned {@code Uni} waits until the running jobs ended
     * @return completes once paused (and, if asked, idle)
     */
    public Uni<Void> pause(boolean waitForActive) {
        return onContext(() -> {
            paused = true;
            updateAccepting();
            return waitForActive ? active.whenIdle() : CompletableFuture.<Void>completedFuture(null);
        }).chain(idle -> Uni.createFrom().completionStage(idle));
    }

    /** Resumes a worker paused with {@link #pause(boolean)}. */
    public void resume() {
        context.runOnContext(ignored -> {
            paused = false;
            updateAccepting();
            fetcher.requestFetch();
        });
    }

    /**
     * Stops the worker as its options say ({@link WorkerOptions#shutdownMode()}).
     *
     * @return completes once the worker stopped
     */
    public Uni<Void> close() {
        return close(options.shutdownMode(), options.drainTimeout());
    }

    /**
     * Stops the worker: it fetches no more jobs; with {@link ShutdownMode#DRAIN} its running jobs may
     * finish for up to {@code drainTimeout}; then the pipelines of the jobs still running are cancelled
     * (their LLM calls close) and the jobs handed back to the queue at once, without counting an attempt.
     *
     * @param mode hand back at once, or drain first
     * @param drainTimeout longest wait for running jobs when draining
     * @return completes once the worker stopped and its jobs were handed back
     */
    public Uni<Void> close(ShutdownMode mode, Duration drainTimeout) {
        stopping = true;
        Uni<Void> drained = onContext(() -> {
            closing = true;
            updateAccepting();
            fetcher.stop();
            hooks.stopping().accept(this);
            markerWaiter.close().subscribe().with(v -> {
            }, f -> {
            });
            return mode == ShutdownMode.DRAIN ? active.whenIdle() : CompletableFuture.<Void>completedFuture(null);
        }).chain(idle -> Uni.createFrom().completionStage(idle).ifNoItem().after(drainTimeout).recoverWithItem((Void) null));
        return drained.chain(() -> onContext(ending::handBackAll)).chain(handedBack -> handedBack)
                .chain(() -> onContext(active::whenIdle)).chain(idle -> Uni.createFrom().completionStage(idle)
                        .ifNoItem().after(commandTimeout).recoverWithItem((Void) null))
                .chain(() -> onContext(() -> {
                    running = false;
                    updateAccepting();
                    cancelTimer(renewTimer);
                    cancelTimer(stalledTimer);
                    return null;
                })).replaceWithVoid();
    }

    /** Called when Redis tells that a job's epoch {@code token} was revoked (aborted or handed to another worker). */
    void revoked(String jobId, long token) {
        context.runOnContext(ignored -> {
            ActiveJob job = active.get(jobId);
            if (job != null && job.fencingToken() <= token && !frozen) {
                LOG.infof("worker %s: job %s (token %d) was revoked; cancelling it", id(), jobId, job.fencingToken());
                ending.cancel(job, CancelReason.REVOKED);
            }
        });
    }

    /** Called when a fenced write was rejected: the worker no longer owns the job, so it stops at once. */
    void ownershipLost(ActiveJob job, QueueException reason) {
        counters.rejected(job.id(), Failures.describe(reason));
        context.runOnContext(ignored -> ending.cancel(job, CancelReason.OWNERSHIP_LOST));
    }

    /**
     * The executor through which the writes of this worker's jobs are sent: tasks run on the worker's
     * context, one at a time, in the order they were submitted, whatever thread submits them. Commands go
     * out on the shared connection in the order they are sent, and Redis runs them in that order, so writes
     * of one job subscribed one after the other land in that order even when none waits for the previous
     * one.
     */
    Executor lane() {
        return onContext;
    }

    // ---- running jobs ---------------------------------------------------------------------------------

    private void run(Activation.Activated activated, long sentAt) {
        ActiveJob running = new ActiveJob(activated, sentAt + options.lockDuration().toNanos(),
                AttemptSpan.start(tracing, activated.job(), activated.resumePoint(), options.workerId()));
        active.add(running);
        counters.started(running.job());
        WorkerJobContext jobContext = new WorkerJobContext(host, running, json);
        // The outcome is handled in a task of its own on the context (not in the processor's call stack, nor on the
        // thread a blocking or asynchronous processor ended on).
        running.runs(AttemptPipeline.subscribe(AttemptPipeline.of(processor, jobContext, running, blockingExecutor),
                result -> onContext.execute(() -> ending.finish(running, result, null)),
                failure -> onContext.execute(() -> ending.finish(running, null, failure))));
    }

    private void updateAccepting() {
        active.accepting(running && !frozen && !paused && !closing);
    }

    // ---- timers ---------------------------------------------------------------------------------------

    private void renewLocks() {
        if (!frozen && !active.isEmpty()) {
            lockRenewer.tick(id(), active.snapshot(), onContext, ending::cancel);
        }
    }

    private void cancelTimer(long timer) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    /** @return a {@code Uni} of {@code action}'s result, computed on this worker's context */
    private <T> Uni<T> onContext(Supplier<T> action) {
        return Uni.createFrom().item(action).runSubscriptionOn(onContext);
    }
}
