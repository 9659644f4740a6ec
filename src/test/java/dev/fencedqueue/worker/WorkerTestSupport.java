package dev.fencedqueue.worker;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.awaitility.Awaitility.await;

import java.util.Arrays;

import dev.fencedqueue.testing.QueueTestSupport;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;

/** What the worker tests share beyond {@link QueueTestSupport}: the state of the workers' blocking pops. */
abstract class WorkerTestSupport extends QueueTestSupport {

    /** Waits until the worker with these options is blocked on the test queue's marker ({@code BZPOPMIN}). */
    protected void awaitBlockedOnMarker(WorkerOptions options) {
        await().atMost(TIMEOUT).until(() -> blockedOnMarker(options));
    }

    /**
     * Waits until every given worker is blocked on the queue's marker again with no "jobs ready" marker left, and so
     * has taken what it could since the test last changed the queue. Redis hands a marker at once to a worker that is
     * blocked on it, which then looks at the queue before it blocks again: once all of them are blocked, each looked
     * (or never had a marker to look for). It replaces a quiet period: a job the workers were going to take is active
     * by then, however long the machine stalled.
     *
     * @param options the options of workers that wait for jobs (free slots, not paused)
     */
    protected void awaitWorkersLookedAtQueue(WorkerOptions... options) {
        await("the workers looked at the queue and wait again").atMost(TIMEOUT).until(() -> !readyMarkerSet()
                && Arrays.stream(options).allMatch(this::blockedOnMarker));
    }

    /** @return whether the worker with these options is blocked on the test queue's marker now */
    protected boolean blockedOnMarker(WorkerOptions options) {
        return MarkerWaits.blockedOnMarker(redis, queue.name(), options);
    }

    private boolean readyMarkerSet() {
        return redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().marker()).arg("0")) != null;
    }
}
