package dev.fencedqueue.worker;

import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Reconnect;
import dev.fencedqueue.redis.RedisClock;
import dev.fencedqueue.worker.WorkerScripts.MoveToActiveArgs;
import dev.fencedqueue.worker.WorkerScripts.NextJobs;
import io.vertx.core.Vertx;
import org.jboss.logging.Logger;

/**
 * A worker's fetch loop, without polling: while the worker has free slots it activates as many jobs as
 * it has slots ({@code moveToActive}), until none is ready; then it blocks on the queue's marker. A popped
 * marker, a timer at the due time of the earliest delayed job (Redis clock, via the offset that {@link RedisClock}
 * estimates from the activations' replies) or the end of a rate-limit window starts the next activation. At most one
 * activation is in flight at a time, beside at most one blocking pop. Completions bring the
 * next jobs themselves (see {@link #handle}). Confined to the worker's Vert.x context.
 */
final class JobFetcher {

    private static final Logger LOG = Logger.getLogger(JobFetcher.class);

    /** The worker's slots, counted on its context. */
    interface Slots {
        /** @return slots that may take a job now (0 while the worker does not accept jobs) */
        int free();

        /** Counts {@code n} slots as taken by an activation in flight. */
        void reserve(int n);

        /** Releases {@code n} reserved slots once their activation answered. */
        void unreserve(int n);
    }

    /** Starts an activated job. */
    interface Runner {
        /**
         * @param job the job, now active and locked
         * @param sentAt when its activation was sent (System.nanoTime), the start of its lock's life
         */
        void run(Activation.Activated job, long sentAt);
    }

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    private final WorkerOptions options;
    private final Vertx vertx;
    private final Executor onContext;
    private final MarkerWaiter markerWaiter;
    private final Slots slots;
    private final Runner runner;

    private boolean activating;
    private boolean fetchWanted;
    private boolean stopped;
    /** Activations that failed in a row. */
    private int failureStreak;
    /** Marker waits that failed in a row; counted apart, as a marker wait may fail while an activation is in flight. */
    private int markerFailureStreak;
    private long markerRetryTimer = -1;
    private final RedisClock redisClock = new RedisClock();
    private ScheduledFuture<?> delayedTimer;
    /** Identifies the pending delayed-job timer; a timer that fires after it was replaced does nothing. */
    private Object delayedGeneration;
    private long delayedDue = Long.MAX_VALUE;
    private long limiterTimer = -1;

    /**
     * @param keys the queue's key layout
     * @param scripts the script registry
     * @param maxStreamLength the job event stream's maximum length, entries
     * @param maxQueueEvents the queue event stream's maximum length, entries
     * @param options the worker's options
     * @param vertx the Vert.x of the worker's context, for timers
     * @param onContext runs a task on the worker's context
     * @param markerWaiter the worker's blocking pop on the queue's marker
     * @param slots the worker's slots
     * @param runner starts an activated job
     */
    JobFetcher(QueueKeys keys, LuaScripts scripts, int maxStreamLength, int maxQueueEvents, WorkerOptions options,
            Vertx vertx, Executor onContext, MarkerWaiter markerWaiter, Slots slots, Runner runner) {
        this.keys = keys;
        this.scripts = scripts;
        this.maxStreamLength = maxStreamLength;
        this.maxQueueEvents = maxQueueEvents;
        this.options = options;
        this.vertx = vertx;
        this.onContext = onContext;
        this.markerWaiter = markerWaiter;
        this.slots = slots;
        this.runner = runner;
    }

    /** Random per process, so that lock tokens of different instances never collide. */
    private static final String LOCK_PREFIX_BASE = UUID.randomUUID() + ":";
    private static final AtomicLong LOCK_PREFIX_COUNTER = new AtomicLong();

    /**
     * @return a fresh lock token prefix for one activation call: random per process plus a counter (a
     *         random UUID per call would cost a SecureRandom read on the event loop each time)
     */
    static String lockPrefix() {
        return LOCK_PREFIX_BASE + Long.toString(LOCK_PREFIX_COUNTER.incrementAndGet(), 36);
    }

    /** Looks at the queue as soon as a slot is free (after a slot freed, a wake-up, a thaw). */
    void requestFetch() {
        fetchWanted = true;
        pump();
    }

    /** Activates or blocks on the marker as the slots allow. */
    void pump() {
        if (stopped || activating || slots.free() <= 0) {
            return;
        }
        if (fetchWanted) {
            fetchWanted = false;
            activate();
        } else if (!markerWaiter.isWaiting()) {
            markerWaiter.next().emitOn(onContext).subscribe().with(this::onMarker, this::onMarkerFailure);
        }
    }

    /**
     * Starts the jobs an activation brought and remembers what it said about the queue: the due time of
     * the next delayed job, or the end of a rate-limit window.
     *
     * @param activation the activation's outcome
     * @param sentAt when it was sent (System.nanoTime)
     */
    void handle(Activation activation, long sentAt) {
        long repliedAt = System.nanoTime();
        redisClock.sample(activation.nowMicros(), (repliedAt - sentAt) / 1000, nowMicros(), repliedAt);
        activation.jobs().forEach(job -> runner.run(job, sentAt));
        if ((activation.code() == Activation.NONE_READY || activation.code() == Activation.ACTIVATED)
                && activation.extra() >= 0) {
            scheduleDelayed(activation.extra());
        } else if (activation.code() == Activation.RATE_LIMITED) {
            scheduleAfterRateLimit(activation.extra());
        }
    }

    /** Stops fetching and its timers; a pending blocking pop is released by {@link MarkerWaiter#close()}. */
    void stop() {
        stopped = true;
        if (delayedTimer != null) {
            delayedTimer.cancel(false);
            delayedTimer = null;
            delayedGeneration = null;
        }
        cancel(limiterTimer);
        limiterTimer = -1;
        cancel(markerRetryTimer);
        markerRetryTimer = -1;
    }

    private void onMarker(MarkerWaiter.Marker marker) {
        markerFailureStreak = 0;
        if (stopped || slots.free() <= 0) {
            markerWaiter.putBack(marker).subscribe().with(ignored -> {
            }, ignored -> {
            });
        } else if (marker != null && "delayed".equals(marker.member())) {
            scheduleDelayed(marker.score());
            pump();
        } else {
            requestFetch();
        }
    }

    private void activate() {
        int wanted = slots.free();
        slots.reserve(wanted);
        activating = true;
        long sentAt = System.nanoTime();
        String lockPrefix = lockPrefix();
        NextJobs next = new NextJobs(options.workerId(), wanted, lockPrefix, options.lockDuration());
        scripts.run(new MoveToActiveArgs(keys, next, maxStreamLength, maxQueueEvents))
                .emitOn(onContext)
                .subscribe().with(reply -> {
                    slots.unreserve(wanted);
                    activating = false;
                    failureStreak = 0;
                    Activation activation = Activation.parse(reply, 0, keys.queue(), lockPrefix, options.workerId());
                    handle(activation, sentAt);
                    if (activation.code() == Activation.ACTIVATED && activation.jobs().size() == wanted) {
                        fetchWanted = true; // there may be more
                    }
                    pump();
                }, failure -> {
                    slots.unreserve(wanted);
                    onFailure(failure);
                });
    }

    /** An activation failed: its slots are back; look again after the back-off. */
    private void onFailure(Throwable failure) {
        activating = false;
        if (stopped) {
            return;
        }
        long backoff = Reconnect.delayMillis(++failureStreak);
        if (failureStreak == 1 || failureStreak % 20 == 0) {
            LOG.warnf("worker %s cannot fetch from queue %s (retrying in %d ms): %s", options.workerId(), keys.queue(),
                    backoff, Failures.describe(failure));
        }
        vertx.setTimer(backoff, id -> requestFetch());
    }

    /**
     * The blocking pop on the marker failed (its connection was cut, or it timed out). It does not touch the
     * activation state: an activation may be in flight, and a second one must not start beside it. After the
     * back-off the worker looks at the queue (the marker it was waiting for may have been popped and lost with the
     * connection), then blocks on the marker again.
     */
    private void onMarkerFailure(Throwable failure) {
        if (stopped) {
            return;
        }
        long backoff = Reconnect.delayMillis(++markerFailureStreak);
        if (markerFailureStreak == 1 || markerFailureStreak % 20 == 0) {
            LOG.warnf("worker %s cannot wait for jobs on queue %s (retrying in %d ms): %s", options.workerId(),
                    keys.queue(), backoff, Failures.describe(failure));
        }
        cancel(markerRetryTimer);
        markerRetryTimer = vertx.setTimer(backoff, id -> {
            markerRetryTimer = -1;
            requestFetch();
        });
    }

    /**
     * Times the next look at the queue for the due time of a delayed job, on this JVM's clock shifted by the
     * measured offset to the Redis clock, so that the job is activated within about a round trip of its due
     * time (waiting for Redis to wake a blocked pop would cost up to 100 ms, its default {@code hz}). The
     * timer is a {@link DueTimer}, precise to well under a millisecond, which hands over to the worker's
     * context.
     */
    private void scheduleDelayed(long dueMillis) {
        if (stopped || dueMillis >= delayedDue) {
            return;
        }
        if (delayedTimer != null) {
            delayedTimer.cancel(false);
        }
        delayedDue = dueMillis;
        long wait = Math.max(1, dueMillis * 1000 - (nowMicros() + redisClock.offsetMicros()));
        Object generation = new Object();
        delayedGeneration = generation;
        delayedTimer = DueTimer.schedule(() -> onContext.execute(() -> {
            if (delayedGeneration == generation) { // not cancelled or replaced meanwhile
                delayedGeneration = null;
                delayedTimer = null;
                delayedDue = Long.MAX_VALUE;
                requestFetch();
            }
        }), wait);
    }

    /** @return this JVM's wall clock, µs since the epoch */
    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    private void scheduleAfterRateLimit(long waitMillis) {
        if (stopped || limiterTimer >= 0) {
            return;
        }
        limiterTimer = vertx.setTimer(Math.max(1, waitMillis), id -> {
            limiterTimer = -1;
            requestFetch();
        });
    }

    private void cancel(long timer) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }
}
