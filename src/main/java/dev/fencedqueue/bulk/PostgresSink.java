package dev.fencedqueue.bulk;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.BlockingInvocation;
import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Uni;

/**
 * The PostgreSQL sink: each chunk is read, advances the cursor under the fence and is written in one transaction
 * ({@link PostgresCursors}). Every step blocks (JDBC) and runs on {@code blocking} (virtual threads or Quarkus's
 * worker pool), never on the event loop; cancelling a step aborts its connection, so the chunk in flight rolls
 * back.
 *
 * @param <I> one target of the job
 */
public final class PostgresSink<I> implements ChunkSink<I> {

    /** Longest wait for the abort flag before a chunk commits (Redis answers in well under a ms). */
    private static final Duration GATE_TIMEOUT = Duration.ofSeconds(10);

    private final PostgresChunkedJob<I> job;
    private final PostgresCursors cursors;
    private final ExecutorService blocking;

    /**
     * @param job reads and writes the chunks
     * @param cursors the fenced cursors in the database
     * @param blocking where the blocking steps run, never an event loop
     */
    public PostgresSink(PostgresChunkedJob<I> job, PostgresCursors cursors, ExecutorService blocking) {
        this.job = job;
        this.cursors = cursors;
        this.blocking = blocking;
    }

    @Override
    public ChunkSink.Attempt<I> attempt(JobContext context) {
        ConnectionGuard guard = new ConnectionGuard();
        return new ChunkSink.Attempt<>() {

            @Override
            public Uni<Optional<Cursor>> claim() {
                return step(() -> cursors.claim(context.jobId(), context.fencingToken(), context.attemptId(), guard), guard);
            }

            @Override
            public Uni<Long> total() {
                return step(() -> cursors.query(connection -> job.total(connection, context), guard), guard);
            }

            @Override
            public Uni<ChunkOutcome<I>> nextChunk(Cursor from, int size, CompletionStage<Boolean> proceed) {
                return step(() -> cursors.nextChunk(context.jobId(), context.fencingToken(), from, size, job, context,
                        () -> proceed.toCompletableFuture().get(GATE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS),
                        guard), guard);
            }
        };
    }

    private <T> Uni<T> step(Callable<T> call, ConnectionGuard guard) {
        return BlockingInvocation.call(call, blocking).onCancellation().invoke(guard::abort);
    }
}
