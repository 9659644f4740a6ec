package dev.fencedqueue.bulk;

import dev.fencedqueue.config.BulkConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Prometheus metrics of the chunked jobs: {@code fq_bulk_chunks_committed_total}, {@code fq_bulk_items_committed_total}
 * and {@code fq_bulk_chunks_rejected_total} (a zombie's chunk refused by the fence in the database and rolled back),
 * each tagged with the queue.
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
    }

    void committed(String queue, int items) {
        registry.counter("fq.bulk.chunks.committed", "queue", queue).increment();
        registry.counter("fq.bulk.items.committed", "queue", queue).increment(items);
    }

    void rejected(String queue) {
        registry.counter("fq.bulk.chunks.rejected", "queue", queue).increment();
    }
}
