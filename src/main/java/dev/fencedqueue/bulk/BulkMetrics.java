package dev.fencedqueue.bulk;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Prometheus metrics of the chunked jobs: {@code fq_bulk_chunks_committed_total}, {@code fq_bulk_items_committed_total}
 * and {@code fq_bulk_chunks_rejected_total} (a zombie's chunk refused by the fence in the database and rolled back),
 * each tagged with the queue, and the histogram {@code fq_bulk_chunk_duration_seconds{queue, outcome}} (a chunk's time
 * in its sink: the database time of the bulk jobs).
 */
@ApplicationScoped
public class BulkMetrics {

    private final MeterRegistry registry;

    public BulkMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Starts the bulk queue's counters at 0, so that they exist before its first chunk (and its first refusal). */
    void initialize(@Observes StartupEvent event, BulkConfig config) {
        registry.counter("fq.bulk.chunks.committed", "queue", config.queue());
        registry.counter("fq.bulk.items.committed", "queue", config.queue());
        registry.counter("fq.bulk.chunks.rejected", "queue", config.queue());
        chunkTimer(config.queue(), "committed");
    }

    void committed(String queue, int items) {
        registry.counter("fq.bulk.chunks.committed", "queue", queue).increment();
        registry.counter("fq.bulk.items.committed", "queue", queue).increment(items);
    }

    void rejected(String queue) {
        registry.counter("fq.bulk.chunks.rejected", "queue", queue).increment();
    }

    /**
     * Times one chunk in its sink: its transaction (read, writes, fenced cursor advance, commit), or the Redis sink's
     * script, into {@code fq_bulk_chunk_duration_seconds{queue, outcome}}.
     *
     * @param queue the job's queue
     * @param status how the chunk ended, or {@code "failed"} when the sink failed
     * @param nanos how long it took, ns
     */
    void chunkTime(String queue, Object status, long nanos) {
        chunkTimer(queue, status.toString().toLowerCase(Locale.ROOT)).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer chunkTimer(String queue, String outcome) {
        return Timer.builder("fq.bulk.chunk.duration").description("Time of a chunk in its sink (the database "
                + "transaction with its fenced cursor advance, or the Redis sink's script), by how it ended")
                .tags("queue", queue, "outcome", outcome)
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(1)).register(registry);
    }
}
