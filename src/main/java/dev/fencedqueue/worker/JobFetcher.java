package dev.fencedqueue.worker;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.LuaScript;
import dev.fencedqueue.queue.LuaScripts;
import dev.fencedqueue.queue.QueueKeys;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Response;
import org.jboss.logging.Logger;

/**
 * A worker's fetch loop, without polling: while the worker has a free slot it activates jobs
 * ({@code moveToActive}) until none is ready, then blocks on the queue's marker; a popped marker or a
 * timer at the due time of the earliest delayed job (Redis clock, via the offset measured on each
 * activation) starts the next activation. Confined to the worker's Vert.x context.
 */
final class JobFetcher {

    private static final Logger LOG = Logger.getLogger(JobFetcher.class);

    /** Receives an activated job. */
    interface Activated {
        /**
         * @param job the job, now active and locked
         * @param lockToken its lock token
         * @param sentAt when the activation was sent (System.nanoTime), the start of the lock's life
         */
        void run(Job job, String lockToken, long sentAt);
    }

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final WorkerOptions options;
    private final int maxStreamLength;
    private final Vertx vertx;
    private final Executor onContext;
    private final MarkerWaiter markerWaiter;
    private final BooleanSupplier canRun;
    private final Activated activated;

    private boolean activating;
    private boolean fetchWanted;
    private int failureStreak;
    private long clockOffsetMillis;
    private long delayedTimer = -1;
    private long delayedDue = Long.MAX_VALUE;

    JobFetcher(QueueKeys keys, LuaScripts scripts, WorkerOptions options, int maxStreamLength, Vertx vertx,
            Executor onContext, MarkerWaiter markerWaiter, BooleanSupplier canRun, Activated activated) {
        this.keys = keys;
        this.scripts = scripts;
        this.options = options;
        this.maxStreamLength = maxStreamLength;
        this.vertx = vertx;
        this.onContext = onContext;
        this.markerWaiter = markerWaiter;
        this.canRun = canRun;
        this.activated = activated;
    }

    /** Looks at the queue as soon as a slot is free (after a slot freed, a wake-up, a thaw). */
    void requestFetch() {
        fetchWanted = true;
        pump();
    }

    /** Stops timers; a pending blocking pop is released by {@link MarkerWaiter#close()}. */
    void stop() {
        if (delayedTimer >= 0) {
            vertx.cancelTimer(delayedTimer);
            delayedTimer = -1;
        }
    }

    private void pump() {
        if (activating || !canRun.getAsBoolean()) {
            return;
        }
        if (fetchWanted) {
            fetchWanted = false;
            activate();
        } else if (!markerWaiter.isWaiting()) {
            markerWaiter.next().emitOn(onContext).subscribe().with(this::onMarker, this::onFailure);
        }
    }

    private void onMarker(MarkerWaiter.Marker marker) {
        if (!canRun.getAsBoolean()) {
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
        activating = true;
        String lockToken = UUID.randomUUID().toString();
        long sentAt = System.nanoTime();
        scripts.run(LuaScript.MOVE_TO_ACTIVE,
                List.of(keys.waitList(), keys.active(), keys.prioritized(), keys.delayed(), keys.marker(), keys.meta()),
                List.of(keys.prefix(), lockToken, Long.toString(options.lockDuration().toMillis()), options.workerId(),
                        Integer.toString(maxStreamLength)))
                .emitOn(onContext)
                .subscribe().with(reply -> onActivated(reply, lockToken, sentAt), this::onFailure);
    }

    private void onActivated(Response reply, String lockToken, long sentAt) {
        activating = false;
        failureStreak = 0;
        if (reply.get(0).toInteger() == 1) {
            clockOffsetMillis = reply.get(3).toLong() - System.currentTimeMillis();
            activated.run(toJob(reply), lockToken, sentAt);
            fetchWanted = true;
        } else {
            clockOffsetMillis = reply.get(2).toLong() - System.currentTimeMillis();
            long nextDue = reply.get(1).toLong();
            if (nextDue >= 0) {
                scheduleDelayed(nextDue);
            }
        }
        pump();
    }

    private void onFailure(Throwable failure) {
        activating = false;
        if (!canRun.getAsBoolean()) {
            return;
        }
        long backoff = Math.min(5_000, 100L << Math.min(failureStreak++, 6));
        if (failureStreak == 1 || failureStreak % 20 == 0) {
            LOG.warnf("worker %s cannot fetch from queue %s (retrying in %d ms): %s", options.workerId(), keys.queue(),
                    backoff, failure.getMessage());
        }
        vertx.setTimer(backoff, id -> requestFetch());
    }

    private void scheduleDelayed(long dueMillis) {
        if (dueMillis >= delayedDue) {
            return;
        }
        stop();
        delayedDue = dueMillis;
        long wait = Math.max(1, dueMillis - (System.currentTimeMillis() + clockOffsetMillis));
        delayedTimer = vertx.setTimer(wait, id -> {
            delayedTimer = -1;
            delayedDue = Long.MAX_VALUE;
            requestFetch();
        });
    }

    private Job toJob(Response reply) {
        Map<String, String> hash = new HashMap<>();
        for (int i = 4; i + 1 < reply.size(); i += 2) {
            hash.put(reply.get(i).toString(), reply.get(i + 1).toString());
        }
        return Job.fromHash(keys.queue(), reply.get(1).toString(), hash, reply.get(2).toLong());
    }
}
