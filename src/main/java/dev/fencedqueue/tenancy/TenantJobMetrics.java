package dev.fencedqueue.tenancy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.fencedqueue.Failures;
import dev.fencedqueue.config.MetricsConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.tenancy.Tenants;
import dev.fencedqueue.telemetry.QueueMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * {@code fq_tenant_jobs{queue, tenant, state}}: each tenant's jobs ready to run ({@code state=waiting}: waiting,
 * prioritized, or held by a paused queue) and running ({@code state=running}) in each queue this instance's workers
 * serve, read from Redis every {@code fq.metrics.queue-refresh} ({@link JobQueue#getTenantJobs}). The tenants that
 * metrics name are labelled by name ({@link Tenants#namedInMetrics}: those with settings, and {@code default}); every
 * other tenant's jobs are the queue's less theirs, labelled {@code other}: a bounded label set, however many tenants
 * there are. Each read scans a queue's running jobs once per named tenant (O(running jobs)).
 */
@Startup
@ApplicationScoped
public class TenantJobMetrics {

    private static final Logger LOG = Logger.getLogger(TenantJobMetrics.class);

    private final Queues queues;
    private final QueueMetrics queueMetrics;
    private final Tenants tenants;
    private final MeterRegistry registry;
    private final Vertx vertx;
    /** The last value of each gauge, by {@code queue, tenant, state}. */
    private final Map<List<String>, Double> values = new ConcurrentHashMap<>();
    private final long timer;
    private volatile boolean reading;

    public TenantJobMetrics(Queues queues, QueueMetrics queueMetrics, Tenants tenants, MeterRegistry registry,
            Vertx vertx, MetricsConfig config) {
        this.queues = queues;
        this.queueMetrics = queueMetrics;
        this.tenants = tenants;
        this.registry = registry;
        this.vertx = vertx;
        this.timer = vertx.setPeriodic(Math.max(1, config.queueRefresh().toMillis()), id -> refresh());
    }

    private void refresh() {
        if (reading) {
            return; // the last read has not finished: Redis is slow or down; the gauges keep their last values
        }
        Map<String, Map<JobState, Long>> counts = queueMetrics.trackedCounts();
        List<String> named = List.copyOf(tenants.namedInMetrics());
        List<Uni<Void>> reads = new ArrayList<>();
        counts.forEach((queue, queueCounts) -> reads.add(read(queue, queueCounts, named)));
        if (reads.isEmpty()) {
            return;
        }
        reading = true;
        Uni.join().all(reads).andCollectFailures().eventually(() -> reading = false).subscribe().with(ignored -> {
        }, failure -> LOG.debugf("the tenants' job gauges were not read: %s", Failures.describe(failure)));
    }

    private Uni<Void> read(String queue, Map<JobState, Long> counts, List<String> named) {
        JobQueue jobs = queues.queue(queue);
        return Uni.join().all(named.stream().map(jobs::getTenantJobs).toList()).andFailFast().invoke(read -> {
            long ready = counts.getOrDefault(JobState.WAITING, 0L) + counts.getOrDefault(JobState.PAUSED, 0L)
                    + counts.getOrDefault(JobState.PRIORITIZED, 0L);
            long running = counts.getOrDefault(JobState.ACTIVE, 0L);
            for (int i = 0; i < named.size(); i++) {
                set(queue, named.get(i), "waiting", read.get(i).ready());
                set(queue, named.get(i), "running", read.get(i).running());
                ready -= read.get(i).ready();
                running -= read.get(i).running();
            }
            // The queue's counts were read a moment before: the difference is clamped at 0.
            set(queue, Tenants.OTHER, "waiting", Math.max(0, ready));
            set(queue, Tenants.OTHER, "running", Math.max(0, running));
            forgetUnnamed(queue, named);
        }).replaceWithVoid();
    }

    private void set(String queue, String tenant, String state, long value) {
        List<String> key = List.of(queue, tenant, state);
        if (values.put(key, (double) value) == null) {
            Gauge.builder("fq.tenant.jobs", values, all -> all.getOrDefault(key, Double.NaN)).tag("queue", queue)
                    .tag("tenant", tenant).tag("state", state)
                    .description("A tenant's jobs ready to run (waiting) and running in a queue, read from Redis every "
                            + "fq.metrics.queue-refresh; tenants without settings as tenant=other")
                    .register(registry);
        }
    }

    /** Removes the gauges of the queue's tenants that metrics no longer name (their settings were removed). */
    private void forgetUnnamed(String queue, List<String> named) {
        for (List<String> key : List.copyOf(values.keySet())) {
            String tenant = key.get(1);
            if (key.get(0).equals(queue) && !named.contains(tenant) && !Tenants.OTHER.equals(tenant)) {
                values.remove(key);
                Gauge gauge = registry.find("fq.tenant.jobs").tag("queue", queue).tag("tenant", tenant)
                        .tag("state", key.get(2)).gauge();
                if (gauge != null) {
                    registry.remove(gauge);
                }
            }
        }
    }

    @PreDestroy
    void close() {
        vertx.cancelTimer(timer);
    }
}
