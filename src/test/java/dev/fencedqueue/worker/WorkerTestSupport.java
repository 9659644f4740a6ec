package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.awaitility.Awaitility.await;

import dev.fencedqueue.testing.QueueTestSupport;

/** What the worker tests share beyond {@link QueueTestSupport}: the state of a worker's blocking pop. */
abstract class WorkerTestSupport extends QueueTestSupport {

    /** Waits until the worker with these options is blocked on the test queue's marker ({@code BZPOPMIN}). */
    protected void awaitBlockedOnMarker(WorkerOptions options) {
        await().atMost(TIMEOUT).until(() -> blockedOnMarker(options));
    }

    /** @return whether the worker with these options is blocked on the test queue's marker now */
    protected boolean blockedOnMarker(WorkerOptions options) {
        return redis.isBlocked(MarkerWaiter.connectionName(queue.name(), options), "bzpopmin");
    }
}
