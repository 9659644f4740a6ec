package dev.fencedqueue.bulk;

import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.WorkerManager;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Builds the runtime of a chunked job ({@link ChunkedProcessor}) on the sink it is written for, from the service's
 * beans: the abort flags and throttles ({@link BulkControl}), spans, metrics and {@code fq.bulk}; for the PostgreSQL
 * sink, its fenced cursors and the workers' blocking executor; for the Redis sink, its fenced cursors and the shared
 * connection.
 */
@ApplicationScoped
public class ChunkedProcessors {

    private final PostgresCursors postgresCursors;
    private final RedisCursors redisCursors;
    private final SharedConnection connection;
    private final WorkerManager workers;
    private final BulkControl control;
    private final JobTracing tracing;
    private final BulkMetrics metrics;
    private final BulkConfig config;

    public ChunkedProcessors(PostgresCursors postgresCursors, RedisCursors redisCursors, SharedConnection connection,
            WorkerManager workers, BulkControl control, JobTracing tracing, BulkMetrics metrics, BulkConfig config) {
        this.postgresCursors = postgresCursors;
        this.redisCursors = redisCursors;
        this.connection = connection;
        this.workers = workers;
        this.control = control;
        this.tracing = tracing;
        this.metrics = metrics;
        this.config = config;
    }

    /**
     * @param job the job, must not be {@code null}
     * @param <I> one target of the job
     * @return its runtime on the PostgreSQL sink ({@link PostgresSink}), its blocking steps on the workers' blocking
     *         executor
     */
    public <I> ChunkedProcessor<I> postgres(PostgresChunkedJob<I> job) {
        return new ChunkedProcessor<>(job, new PostgresSink<>(job, postgresCursors, workers.blockingExecutor()), control,
                tracing, metrics, config);
    }

    /**
     * @param job the job, must not be {@code null}
     * @param <I> one target of the job
     * @return its runtime on the Redis sink ({@link RedisSink}), reading through the shared connection
     */
    public <I> ChunkedProcessor<I> redis(RedisChunkedJob<I> job) {
        return new ChunkedProcessor<>(job, new RedisSink<>(job, redisCursors, connection), control, tracing, metrics,
                config);
    }
}
