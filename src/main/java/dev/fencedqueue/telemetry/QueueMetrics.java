package dev.fencedqueue.telemetry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import dev.fencedqueue.Failures;
import dev.fencedqueue.config.ArchiveConfig;
import dev.fencedqueue.config.MetricsConfig;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.QueueFigures;
import dev.fencedqueue.queue.Queues;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * The gauges of each queue this instance's workers serve, read from Redis (the queue's own truth, the same for every
 * instance) every {@code fq.metrics.queue-refresh}, so that a scrape reads the last values and never waits for Redis:
 * {@code fq_queue_jobs{queue, state}} (jobs by state: {@code waiting}, {@code paused}, {@code prioritized},
 * {@code delayed}, {@code waiting-children}, {@code active}, {@code completed}, {@code failed}, aborted included, as
 * {@link JobQueue#getJobCounts()} counts them) and {@code fq_queue_oldest_waiting_age_seconds{queue}} (how long the job
 * next in line, or the longest waiting prioritized one when it waited longer, has been ready to run: since it was
 * added, or since its delay ended; 0 when nothing waits), both by the Redis clock; and, while finished jobs move to the
 * archive ({@code fq.archive.enabled} with a datasource), {@code fq_archive_lag_seconds{queue}}: how long the oldest
 * finished job still in Redis has been due to move (past {@code fq.archive.grace}; 0 when none is), which grows while
 * PostgreSQL is down or the archive falls behind. Before the first read they are NaN.
 */
@ApplicationScoped
public class QueueMetrics {

    private static final Logger LOG = Logger.getLogger(QueueMetrics.class);
    private static final List<JobState> STATES = List.of(JobState.WAITING, JobState.PAUSED, JobState.PRIORITIZED,
            JobState.DELAYED, JobState.WAITING_CHILDREN, JobState.ACTIVE, JobState.COMPLETED, JobState.FAILED);

    /** One queue's last read, and how many workers of this instance serve it. */
    private static final class Tracked {
        final List<Meter> meters = new ArrayList<>();
        volatile Map<JobState, Long> counts;
        volatile double oldestWaitingAge = Double.NaN;
        volatile double archiveLag = Double.NaN;
        int workers;
        boolean reading;
    }

    private final Queues queues;
    private final QueueFigures figures;
    private final MeterRegistry registry;
    private final Vertx vertx;
    private final Duration archiveGrace;
    private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
    private final long timer;

    public QueueMetrics(Queues queues, QueueFigures figures, JobArchive jobArchive, MeterRegistry registry, Vertx vertx,
            MetricsConfig config, ArchiveConfig archive) {
        this.queues = queues;
        this.figures = figures;
        this.registry = registry;
        this.vertx = vertx;
        this.archiveGrace = jobArchive.isActive() ? archive.grace() : null;
        this.timer = vertx.setPeriodic(Math.max(1, config.queueRefresh().toMillis()), id -> refresh());
    }

    /** @return the queues whose gauges this instance publishes (its workers serve them), with their last counts */
    public Map<String, Map<JobState, Long>> trackedCounts() {
        Map<String, Map<JobState, Long>> counts = new TreeMap<>();
        tracked.forEach((queue, queueMetrics) -> {
            if (queueMetrics.counts != null) {
                counts.put(queue, queueMetrics.counts);
            }
        });
        return counts;
    }

    /** Publishes the gauges of a queue a worker of this instance started to serve. */
    synchronized void track(String queue) {
        Tracked queueMetrics = tracked.computeIfAbsent(queue, name -> register(name, new Tracked()));
        queueMetrics.workers++;
        if (queueMetrics.workers == 1) {
            vertx.runOnContext(ignored -> read(queue, queueMetrics));
        }
    }

    /** Removes the gauges of a queue once no worker of this instance serves it. */
    synchronized void untrack(String queue) {
        Tracked queueMetrics = tracked.get(queue);
        if (queueMetrics != null && --queueMetrics.workers == 0) {
            tracked.remove(queue);
            queueMetrics.meters.forEach(registry::remove);
        }
    }

    private Tracked register(String queue, Tracked queueMetrics) {
        for (JobState state : STATES) {
            queueMetrics.meters.add(Gauge.builder("fq.queue.jobs", queueMetrics, q -> q.counts == null ? Double.NaN
                    : q.counts.getOrDefault(state, 0L)).tag("queue", queue).tag("state", state.value())
                    .description("Jobs of the queue by state, read from Redis every fq.metrics.queue-refresh")
                    .register(registry));
        }
        queueMetrics.meters.add(Gauge.builder("fq.queue.oldest.waiting.age", queueMetrics, q -> q.oldestWaitingAge)
                .tag("queue", queue).baseUnit("seconds")
                .description("How long the queue's longest-waiting ready job has waited to run (0: none waits)")
                .register(registry));
        if (archiveGrace != null) {
            queueMetrics.meters.add(Gauge.builder("fq.archive.lag", queueMetrics, q -> q.archiveLag)
                    .tag("queue", queue).baseUnit("seconds")
                    .description("How long the queue's oldest finished job still in Redis has been due to move to the "
                            + "archive (0: none is)")
                    .register(registry));
        }
        return queueMetrics;
    }

    private void refresh() {
        tracked.forEach(this::read);
    }

    private void read(String queue, Tracked queueMetrics) {
        if (queueMetrics.reading) {
            return; // the last read has not finished: Redis is slow or down; its gauges keep their last values
        }
        queueMetrics.reading = true;
        JobQueue jobs = queues.queue(queue);
        Uni<Double> archiveLag = archiveGrace == null ? Uni.createFrom().item(Double.NaN)
                : figures.archiveLag(jobs.keys(), archiveGrace);
        Uni.combine().all().unis(jobs.getJobCounts(), figures.oldestWaitingAge(jobs.keys()), archiveLag)
                .asTuple()
                .eventually(() -> queueMetrics.reading = false)
                .subscribe().with(read -> {
                    queueMetrics.counts = new EnumMap<>(read.getItem1());
                    queueMetrics.oldestWaitingAge = read.getItem2();
                    queueMetrics.archiveLag = read.getItem3();
                }, failure -> LOG.debugf("the gauges of queue %s were not read: %s", queue, Failures.describe(failure)));
    }

    @PreDestroy
    void close() {
        vertx.cancelTimer(timer);
    }
}
