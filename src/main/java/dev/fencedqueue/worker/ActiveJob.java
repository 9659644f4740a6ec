package dev.fencedqueue.worker;

import java.util.concurrent.CompletableFuture;

import dev.fencedqueue.queue.Job;
import io.smallrye.mutiny.subscription.Cancellable;

/**
 * One job running on a worker: its lock token, its fencing token, and the one cancellation handle of its
 * pipeline. Confined to the worker's Vert.x context, except {@link #cancelled}, which is thread-safe.
 */
final class ActiveJob {

    final Job job;
    final String lockToken;
    final CompletableFuture<CancelReason> cancelled = new CompletableFuture<>();
    /** Until when (System.nanoTime) the lock is known to be held: last successful renewal + lock duration. */
    long lockValidUntil;
    Cancellable pipeline;
    /** Set once the pipeline ended and its completion or failure is being written. */
    boolean finishing;

    ActiveJob(Job job, String lockToken, long lockValidUntil) {
        this.job = job;
        this.lockToken = lockToken;
        this.lockValidUntil = lockValidUntil;
    }

    String id() {
        return job.id();
    }

    long fencingToken() {
        return job.fencingToken();
    }

    boolean isCancelled() {
        return cancelled.isDone();
    }

    /**
     * @return whether the worker gave the job up: cancelled for any reason but {@link CancelReason#TIMEOUT}
     *         (a timed-out attempt still writes its failure)
     */
    boolean isAbandoned() {
        return isCancelled() && cancelled.getNow(null) != CancelReason.TIMEOUT;
    }
}
