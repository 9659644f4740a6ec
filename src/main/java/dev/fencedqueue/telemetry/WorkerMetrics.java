package dev.fencedqueue.telemetry;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
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
    private final TenantLabels tenants;
    /** {@code fq_tenant_wait_seconds} by tenant label (a bounded set: {@link TenantLabels#metricLabel}). */
    private final Map<String, Timer> tenantWaits = new ConcurrentHashMap<>();
    /** The meters of each bound worker, by its counters. */
    private final Map<WorkerCounters, Bound> bound = new ConcurrentHashMap<>();

    /** A bound worker's queue and meters. */
    private record Bound(String queue, List<Meter> meters) {
    }

    public WorkerMetrics(MeterRegistry registry, QueueMetrics queues, TenantLabels tenants) {
        this.tenants = tenants;
        this.registry = registry;
        this.queues = queues;
    }

    /**
     * Publishes a worker's counters, and its queue's gauges, until {@link #unbind}; its attempts' timings go to this
     * queue's histograms from now on.
     *
     * @param queue the worker's queue, not {@code null}
     * @param workerId the worker's id, not {@code null}
     * @param counters the worker's counters, not {@code null}
     */
    public void bind(String queue, String workerId, WorkerCounters counters) {
        Tags tags = Tags.of("queue", queue, "worker", workerId);
        bound.put(counters, new Bound(queue, List.of(
                counter("fq.worker.jobs.completed", "attempts that completed their job", counters, tags,
                        c -> c.stats().completed()),
                counter("fq.worker.jobs.failed", "attempts that failed", counters, tags, c -> c.stats().failed()),
                counter("fq.worker.writes.rejected", "fenced writes refused because a newer run owns the job", counters,
                        tags, c -> c.stats().rejectedWrites()),
                counter("fq.worker.jobs.cancelled", "job pipelines cancelled (ownership lost, revoked, shutdown)",
                        counters, tags, c -> c.stats().cancelled()),
                counter("fq.jobs.stalled", "jobs found stalled (lock expired) by this worker's checks: taken back to "
                        + "wait, or failed past fq.worker.stalled.max-count", counters, tags, c -> c.stats().stalled()),
                Gauge.builder("fq.worker.jobs.active", counters, c -> c.stats().active()).tags(tags)
                        .description("jobs running now").register(registry))));
        queues.track(queue);
        counters.timings(timings(Tags.of("queue", queue)));
    }

    /**
     * @return histograms of the attempts of a queue: {@code fq_job_wait_seconds} (from a job's add, or the end of its
     *         delay, to its first attempt), the same by tenant over every queue, {@code fq_tenant_wait_seconds{tenant}}
     *         (what fair dispatch keeps short for every tenant), and {@code fq_job_processing_seconds{outcome}} (one
     *         attempt, from its activation to its end); shared by the queue's workers on this instance
     */
    private AttemptTimings timings(Tags tags) {
        Timer waited = Timer.builder("fq.job.wait").tags(tags).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofHours(1))
                .description("How long jobs waited from their add (or the end of their delay) to their first attempt")
                .register(registry);
        // One timer per outcome, looked up once: registering (a builder, its tags sorted, the registry's lookup) on
        // every attempt cost more than the attempt's own bookkeeping.
        Map<String, Timer> ran = new ConcurrentHashMap<>();
        return new AttemptTimings() {
            @Override
            public void waited(String tenant, long millis) {
                waited.record(millis, TimeUnit.MILLISECONDS);
                tenantWaits.computeIfAbsent(tenants.metricLabel(tenant), label -> Timer.builder("fq.tenant.wait")
                        .tag("tenant", label).publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofHours(1))
                        .description("How long a tenant's jobs waited from their add (or the end of their delay) to "
                                + "their first attempt, every queue; tenants without settings as tenant=other")
                        .register(registry)).record(millis, TimeUnit.MILLISECONDS);
            }

            @Override
            public void ran(String outcome, long nanos) {
                ran.computeIfAbsent(outcome, name -> Timer.builder("fq.job.processing").tags(tags).tag("outcome", name)
                        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofHours(1))
                        .description("How long attempts ran, from their activation to their end, by how they ended")
                        .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
            }
        };
    }

    /**
     * Removes a worker's counters, bound with {@link #bind}, and its queue's gauges once no bound worker serves it.
     *
     * @param counters the worker's counters, not {@code null}
     */
    public void unbind(WorkerCounters counters) {
        Bound worker = bound.remove(counters);
        if (worker != null) {
            worker.meters().forEach(registry::remove);
            queues.untrack(worker.queue());
        }
    }

    private Meter counter(String name, String description, WorkerCounters counters, Tags tags,
            ToDoubleFunction<WorkerCounters> value) {
        return FunctionCounter.builder(name, counters, value).tags(tags).description(description).register(registry);
    }
}
