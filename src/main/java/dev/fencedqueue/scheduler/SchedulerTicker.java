package dev.fencedqueue.scheduler;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.QueueKeys;
import io.vertx.core.Vertx;
import org.jboss.logging.Logger;

/**
 * Turns a queue's due scheduler ticks into jobs, from one worker: it sleeps until the earliest next tick (on the Redis
 * clock), at most {@link #MAX_WAIT_MS} so that a scheduler upserted by another instance is seen soon, and produces
 * the due ticks ({@link DueTicks#produceDue}). Every worker of the queue does the same; each tick still produces
 * one job fleet-wide. Confined to the worker's context; nothing blocks.
 */
final class SchedulerTicker {

    private static final Logger LOG = Logger.getLogger(SchedulerTicker.class);

    /** Longest sleep between two looks, ms. */
    static final long MAX_WAIT_MS = 1_000;

    /** Most ticks produced per look; a full batch looks again at once. */
    static final int BATCH = 200;

    private final DueTicks ticks;
    private final QueueKeys keys;
    private final Vertx vertx;
    private final long missedAfterMs;
    private long timer = -1;
    private boolean running;

    /** {@code missedAfterMs}: how late a tick may be produced before it counts as missed, ms */
    SchedulerTicker(DueTicks ticks, QueueKeys keys, Vertx vertx, long missedAfterMs) {
        this.ticks = ticks;
        this.keys = keys;
        this.vertx = vertx;
        this.missedAfterMs = missedAfterMs;
    }

    /** Starts looking; call on the worker's context. */
    void start() {
        running = true;
        look();
    }

    /** Stops looking; a look under way finishes its writes. Call on the worker's context. */
    void stop() {
        running = false;
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    private void look() {
        timer = -1;
        if (!running) {
            return;
        }
        ticks.produceDue(keys, BATCH, missedAfterMs).subscribe().with(due -> {
            long wait = due.next() < 0 ? MAX_WAIT_MS : Math.max(1, Math.min(MAX_WAIT_MS, due.next() - due.now()));
            sleep(due.produced() >= BATCH ? 1 : wait);
        }, failure -> {
            LOG.debugf("scheduler ticks of queue %s: %s", keys.queue(), Failures.describe(failure));
            sleep(MAX_WAIT_MS);
        });
    }

    private void sleep(long ms) {
        if (running) {
            timer = vertx.setTimer(ms, id -> look());
        }
    }
}
