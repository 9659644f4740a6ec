package dev.fencedqueue.worker;

import java.util.concurrent.CompletableFuture;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.telemetry.AttemptSpan;
import io.smallrye.mutiny.subscription.Cancellable;

/**
 * One job running on a worker: its lock token, its fencing token, and the one cancellation handle of its
 * pipeline. Confined to the worker's Vert.x context, except {@link #cancelled()}, which is thread-safe.
 */
final class ActiveJob {

    private final Job job;
    private final String lockToken;
    private final String resumePoint;
    private final String checkpoint;
    private final String resumeReason;
    private final AttemptSpan span;
    /** When the attempt was activated (System.nanoTime). */
    private final long activatedAt = System.nanoTime();
    /** Up to when (System.nanoTime) the slot time of the attempt was counted (the worker's slot time tally). */
    private long slotCountedTo = activatedAt;
    private final CompletableFuture<CancelReason> cancelled = new CompletableFuture<>();
    /** Until when (System.nanoTime) the lock is known to be held: last successful renewal + lock duration. */
    private long lockValidUntil;
    private Cancellable pipeline;
    /** The LLM tokens the attempt reported it has spent so far, -1 before it reports any (JobContext.reportTokens). */
    private volatile long tokensSpent = -1;
    /** Set once the pipeline ended and its completion or failure is being written. */
    private boolean finishing;

    /**
     * @param activated the job as its activation returned it, with its lock token, resume point and checkpoint
     * @param lockValidUntil until when (System.nanoTime) the lock is known to be held: the activation's send time
     *        plus the lock duration
     * @param span the attempt's span, started
     */
    ActiveJob(Activation.Activated activated, long lockValidUntil, AttemptSpan span) {
        this.span = span;
        this.job = activated.job();
        this.lockToken = activated.lockToken();
        this.resumePoint = activated.resumePoint();
        this.checkpoint = activated.checkpoint();
        this.resumeReason = activated.resumeReason();
        this.lockValidUntil = lockValidUntil;
    }

    /** @return the LLM tokens the attempt reported it has spent so far, -1 when it reported none */
    long tokensSpent() {
        return tokensSpent;
    }

    /** @param tokens the LLM tokens the attempt has spent so far; thread-safe */
    void reportTokens(long tokens) {
        tokensSpent = tokens;
    }

    /**
     * @param now System.nanoTime
     * @return the slot time of the attempt not counted yet: from its activation, or the last count, to {@code now}, ns
     *         (0 or more); counted up to {@code now} from then on
     */
    long takeSlotNanos(long now) {
        long counted = Math.max(0, now - slotCountedTo);
        slotCountedTo = Math.max(slotCountedTo, now);
        return counted;
    }

    /** @return how long the attempt has run since its activation, ns */
    long runningNanos() {
        return System.nanoTime() - activatedAt;
    }

    /** @return the id of the last event of earlier runs when this run was activated, or {@code null} for none */
    String resumePoint() {
        return resumePoint;
    }

    /** @return the last checkpoint an earlier run committed (JSON text), or {@code null} for none */
    String checkpoint() {
        return checkpoint;
    }

    /**
     * @return why the job was last sent back to wait ({@code takeover}, {@code retry}, {@code children}), or
     *         {@code null} when it never was
     */
    String resumeReason() {
        return resumeReason;
    }

    /** @return the attempt's span */
    AttemptSpan span() {
        return span;
    }

    /** @return the job as its activation returned it */
    Job job() {
        return job;
    }

    String id() {
        return job.id();
    }

    /** @return the lock token of this attempt (its identity in every fenced write) */
    String lockToken() {
        return lockToken;
    }

    long fencingToken() {
        return job.fencingToken();
    }

    /** @return completed with the reason once the attempt is cancelled; thread-safe */
    CompletableFuture<CancelReason> cancelled() {
        return cancelled;
    }

    boolean isCancelled() {
        return cancelled.isDone();
    }

    /**
     * Cancels the attempt: completes {@link #cancelled()} with {@code reason} and cancels the pipeline.
     *
     * @param reason why, must not be {@code null}
     * @return {@code false} when it was cancelled already
     */
    boolean cancel(CancelReason reason) {
        boolean first = cancelled.complete(reason);
        if (pipeline != null) {
            pipeline.cancel();
        }
        return first;
    }

    /**
     * @return whether the worker gave the job up: cancelled for any reason but {@link CancelReason#TIMEOUT}
     *         (a timed-out attempt still writes its failure)
     */
    boolean isAbandoned() {
        return isCancelled() && cancelled.getNow(null) != CancelReason.TIMEOUT;
    }

    /** @param pipeline the subscription to the attempt's pipeline, cancelled by {@link #cancel} */
    void runs(Cancellable pipeline) {
        this.pipeline = pipeline;
    }

    /** @return whether the attempt ended and its completion or failure is being written */
    boolean isFinishing() {
        return finishing;
    }

    /** Marks the attempt as ended: its completion or failure is being written. */
    void finishing() {
        finishing = true;
    }

    /** @return until when (System.nanoTime) the lock is known to be held */
    long lockValidUntil() {
        return lockValidUntil;
    }

    /** @param until until when (System.nanoTime) a renewal made the lock known to be held */
    void renewedUntil(long until) {
        lockValidUntil = until;
    }
}
