package dev.fencedqueue.worker;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Publishes each worker's counters to Micrometer (so to {@code /q/metrics}), tagged with {@code queue}
 * and {@code worker}: {@code fq.worker.jobs.completed}, {@code fq.worker.jobs.failed} (attempts),
 * {@code fq.worker.writes.rejected} (fenced writes Redis refused: a zombie was stopped),
 * {@code fq.worker.jobs.cancelled}, {@code fq.jobs.stalled} (jobs its stalled-job checks found stalled) and the gauge
 * {@code fq.worker.jobs.active}; and the gauges of the worker's queue ({@link QueueMetrics}).
 */
@ApplicationScoped
public class WorkerMetrics {

    private final MeterRegistry registry;
    private final QueueMetrics queues;
    private final Map<Worker, List<Meter>> meters = new ConcurrentHashMap<>();

    public WorkerMetrics(MeterRegistry registry, QueueMetrics queues) {
        this.registry = registry;
        this.queues = queues;
    }

    void bind(Worker worker) {
        Tags tags = Tags.of("queue", worker.queue(), "worker", worker.id());
        meters.put(worker, List.of(
                counter("fq.worker.jobs.completed", "attempts that completed their job", worker, tags, w -> w.stats().completed()),
                counter("fq.worker.jobs.failed", "attempts that failed", worker, tags, w -> w.stats().failed()),
                counter("fq.worker.writes.rejected", "fenced writes refused because a newer run owns the job", worker,
                        tags, w -> w.stats().rejectedWrites()),
                counter("fq.worker.jobs.cancelled", "job pipelines cancelled (ownership lost, revoked, shutdown)", worker,
                        tags, w -> w.stats().cancelled()),
                counter("fq.jobs.stalled", "jobs found stalled (lock expired) by this worker's checks: taken back to "
                        + "wait, or failed past fq.worker.max-stalled-count", worker, tags, w -> w.stats().stalled()),
                Gauge.builder("fq.worker.jobs.active", worker, w -> w.stats().active()).tags(tags)
                        .description("jobs running now").register(registry)));
        queues.track(worker.queue());
    }

    void unbind(Worker worker) {
        List<Meter> bound = meters.remove(worker);
        if (bound != null) {
            bound.forEach(registry::remove);
            queues.untrack(worker.queue());
        }
    }

    private Meter counter(String name, String description, Worker worker, Tags tags, ToDoubleFunction<Worker> value) {
        return FunctionCounter.builder(name, worker, value).tags(tags).description(description).register(registry);
    }
}
