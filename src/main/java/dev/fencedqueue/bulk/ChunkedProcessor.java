package dev.fencedqueue.bulk;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.queue.StaleFencingTokenException;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.JobCancelledException;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import org.jboss.logging.Logger;

/**
 * The runtime of a {@link ChunkedJob}: a {@link JobProcessor} that runs on the event loop; its sink
 * ({@link ChunkSink}: PostgreSQL or Redis) sends blocking steps to a worker or virtual thread. One attempt:
 * <ol>
 * <li>takes the job's single-flight key (waiting, while it polls, until no other running job holds it);</li>
 * <li>claims the job's cursor in the sink for this epoch: a zombie stops here;</li>
 * <li>per chunk: reads the next chunk and commits its writes with the cursor advance under the fence (one
 * transaction, or one Lua script), while reading the abort flag and the throttle from Redis; commits only if no
 * operator asked the job to stop, else writes nothing and stops at this chunk boundary (the job ends
 * {@code aborted}, resumable, its cursor kept); reports a fenced {@code progress} event (cursor, chunks, items,
 * total); waits as the throttle says;</li>
 * <li>completes with the final cursor when no chunk is left.</li>
 * </ol>
 * A chunk refused by the fence was rolled back whole; the attempt then fails as a zombie's
 * ({@link StaleFencingTokenException}) and is counted in {@code fq_bulk_chunks_rejected_total}. Cancellation
 * (a stale token, a revoke, a shutdown) stops the step in progress (a PostgreSQL chunk's connection is aborted, so
 * it rolls back); the next epoch resumes from the committed cursor.
 *
 * @param <I> one target of the job
 */
public final class ChunkedProcessor<I> implements JobProcessor {

    private static final Logger LOG = Logger.getLogger(ChunkedProcessor.class);

    private final ChunkedJob<I> job;
    private final ChunkSink<I> sink;
    private final BulkControl control;
    private final JobTracing tracing;
    private final BulkMetrics metrics;
    private final BulkConfig config;

    /**
     * @param job the chunked job this processor runs (its queue, its plan per attempt), must not be {@code null}
     * @param sink where the job's chunks land with the fenced cursor, must not be {@code null}
     * @param tracing the spans of jobs, where each chunk's span goes, must not be {@code null}
     */
    public ChunkedProcessor(ChunkedJob<I> job, ChunkSink<I> sink, BulkControl control, JobTracing tracing,
            BulkMetrics metrics, BulkConfig config) {
        this.job = job;
        this.sink = sink;
        this.control = control;
        this.tracing = tracing;
        this.metrics = metrics;
        this.config = config;
    }

    @Override
    public String queue() {
        return job.queue();
    }

    /** @return the chunked job's data class ({@link ChunkedJob#dataType()}) */
    @Override
    public Optional<Class<?>> dataType() {
        return job.dataType();
    }

    @Override
    public Uni<Object> process(JobContext context) {
        return new Run(context, job.plan(context)).run();
    }

    /** The state of one attempt; its methods run one after the other, never concurrently. */
    private final class Run {

        private final JobContext context;
        private final ChunkPlan plan;
        private final ChunkSink.Attempt<I> store;
        private Cursor cursor = Cursor.START;
        private long total = -1;
        private boolean done;

        Run(JobContext context, ChunkPlan plan) {
            this.context = context;
            this.plan = plan;
            this.store = sink.attempt(context);
        }

        Uni<Object> run() {
            Uni<Object> chunks = singleFlight()
                    .chain(store::claim)
                    .invoke(claimed -> cursor = claimed.orElseThrow(() -> fencedOff("claim its cursor")))
                    .chain(store::total)
                    .invoke(count -> total = count)
                    .chain(() -> Multi.createBy().repeating().uni(this::nextChunk).whilst(more -> more)
                            .collect().last())
                    .map(last -> (Object) details());
            return plan.singleFlightKey() == null ? chunks : chunks.eventually(() -> control
                    .releaseSingleFlight(queue(), plan.singleFlightKey(), context.jobId())
                    .onFailure().recoverWithNull());
        }

        /**
         * One chunk: the sink reads it and commits it with the cursor advance under the fence, while the abort flag
         * and the throttle are read from Redis (one round trip, at the same time); the chunk commits only once that
         * read says the job may go on, so an operator's abort stops the job before the chunk commits and nothing
         * of it is written. Emits whether another chunk may follow. The progress report is not
         * awaited: the next chunk starts while it travels (the writes of an attempt land in order).
         */
        private Uni<Boolean> nextChunk() {
            long started = System.nanoTime();
            CompletableFuture<BulkControl.Gate> gate = control.gate(queue(), context.jobId()).subscribeAsCompletionStage();
            Cursor from = cursor;
            ChunkSpan span = ChunkSpan.start(tracing, queue(), context.traceContext(), from);
            return store.nextChunk(from, plan.chunkSize(), gate.thenApply(read -> !read.abort()))
                    .onItemOrFailure().invoke((outcome, failure) -> {
                        metrics.chunkTime(queue(), outcome == null ? "failed" : outcome.status(), span.elapsedNanos());
                        if (failure == null) {
                            span.ended(outcome);
                        } else {
                            span.failed(failure);
                        }
                    })
                    .onCancellation().invoke(() -> {
                        span.cancelled();
                        gate.cancel(false);
                        LOG.infof("job %s (token %d): the attempt was cancelled during the chunk after `%s`; it "
                                + "is not committed", context.jobId(), context.fencingToken(), from.position());
                    })
                    .chain(outcome -> switch (outcome.status()) {
                        case DONE -> finished();
                        case STOPPED -> stopHere();
                        case FENCED -> refused(from, outcome.to());
                        // the sink commits only once the gate said go on: it has read the throttle already
                        case COMMITTED -> Uni.createFrom().completionStage(gate).chain(read -> committed(from,
                                outcome, read.throttle().orElse(plan.throttle()), started));
                    });
        }

        private Uni<Boolean> committed(Cursor from, ChunkOutcome<I> outcome, Throttle throttle, long started) {
            int items = outcome.items().size();
            cursor = from.advance(outcome.to(), items);
            metrics.committed(queue(), items);
            context.progress(percent(), message(), details()).subscribe().with(id -> {
            }, failure -> {
                // a refused write already told the worker, which cancels this attempt
            });
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            return pause(throttle.delayAfter(items, took)).replaceWith(true);
        }

        private Uni<Boolean> refused(Cursor from, String to) {
            metrics.rejected(queue());
            LOG.warnf("job %s (token %d): the sink's fence refused chunk %s..%s: a newer epoch owns the job; "
                    + "nothing of the chunk was written", context.jobId(), context.fencingToken(), from.position(), to);
            return Uni.createFrom().failure(fencedOff("commit a chunk"));
        }

        private Uni<Boolean> finished() {
            done = true;
            return context.progress(100, message(), details()).replaceWith(false);
        }

        /** An operator's abort, at a chunk boundary: the job ends aborted and this attempt waits to be cancelled. */
        private Uni<Boolean> stopHere() {
            LOG.infof("job %s stops at a chunk boundary (cursor `%s`, %d items done) as an operator asked",
                    context.jobId(), cursor.position(), cursor.itemsDone());
            return control.abortAtBoundary(queue(), context.jobId(), cursor.position())
                    .chain(() -> context.cancelled())
                    .onItem().<Boolean>transformToUni(reason -> Uni.createFrom()
                            .failure(new JobCancelledException(context.jobId(), reason)));
        }

        /** Takes the job's single-flight key, trying every {@code fq.bulk.single-flight-retry} until it is free. */
        private Uni<Void> singleFlight() {
            String key = plan.singleFlightKey();
            if (key == null) {
                return Uni.createFrom().voidItem();
            }
            return Multi.createBy().repeating().uni(() -> control.acquireSingleFlight(queue(), key, context.jobId())
                    .call(holder -> holder.isEmpty() ? Uni.createFrom().voidItem() : waitFor(key, holder.get())))
                    .whilst(Optional::isPresent).collect().last().replaceWithVoid();
        }

        private Uni<Void> waitFor(String key, String holder) {
            return control.gate(queue(), context.jobId()).chain(gate -> gate.abort()
                    ? stopHere().replaceWithVoid()
                    : context.progress(0, "waiting for job " + holder + " (single-flight key `" + key + "`)",
                            details()).chain(() -> pause(config.singleFlightRetry())));
        }

        private Uni<Void> pause(Duration delay) {
            return delay.isZero() || delay.isNegative() ? Uni.createFrom().voidItem()
                    : Uni.createFrom().voidItem().onItem().delayIt().by(delay);
        }

        private StaleFencingTokenException fencedOff(String what) {
            return new StaleFencingTokenException("job `" + context.jobId() + "` of queue `" + queue()
                    + "`: fencing token " + context.fencingToken() + " could not " + what
                    + " in the sink: a newer run owns the job");
        }

        private int percent() {
            if (done) {
                return 100;
            }
            return total > 0 ? (int) Math.min(99, cursor.itemsDone() * 100 / total) : 0;
        }

        private String message() {
            return done ? "done: " + cursor.itemsDone() + " items in " + cursor.chunksDone() + " chunks"
                    : cursor.itemsDone() + (total >= 0 ? " of " + total : "") + " items";
        }

        private ObjectNode details() {
            ObjectNode details = JsonNodeFactory.instance.objectNode()
                    .put("cursor", cursor.position())
                    .put("chunksDone", cursor.chunksDone())
                    .put("itemsDone", cursor.itemsDone());
            if (total >= 0) {
                details.put("itemsTotal", total);
            } else {
                details.putNull("itemsTotal");
            }
            return details;
        }
    }
}
