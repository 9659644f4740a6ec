package dev.fencedqueue.worker;

import dev.fencedqueue.testing.QueueInspector;

/** A worker's blocking pop on its queue's marker, as Redis sees it, for the tests of any package. */
public final class MarkerWaits {

    private MarkerWaits() {
    }

    /**
     * A worker blocks on the marker only after it looked at the queue (at its start, after a job of its ended, or
     * after a marker woke it), and Redis hands it a marker at once: while it is blocked, it has taken every job it
     * could.
     *
     * @param redis the test's view of Redis
     * @param queue the worker's queue name
     * @param options the worker's options
     * @return whether the worker is blocked on its queue's marker ({@code BZPOPMIN}) now
     */
    public static boolean blockedOnMarker(QueueInspector redis, String queue, WorkerOptions options) {
        return redis.isBlocked(MarkerWaiter.connectionName(queue, options), "bzpopmin");
    }
}
