package dev.fencedqueue.events;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.fencedqueue.config.EventsConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.SharedConnection;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The event tailers of this instance, one per queue, all on one Vert.x context created at startup. Publishes
 * {@code fq_sse_subscribers} (gauge): live SSE subscribers of job streams on this instance, all queues.
 */
@Startup
@ApplicationScoped
public class JobEventTailers {

    private final SharedConnection redis;
    private final JobEventStore store;
    private final int bufferSize;
    private final Context context;
    private final Map<String, JobEventTailer> tailers = new ConcurrentHashMap<>();

    public JobEventTailers(SharedConnection redis, JobEventStore store, EventsConfig config, Vertx vertx,
            MeterRegistry registry) {
        this.redis = redis;
        this.store = store;
        this.bufferSize = config.subscriberBuffer();
        this.context = vertx.getOrCreateContext();
        Gauge.builder("fq.sse.subscribers", this, JobEventTailers::subscribers)
                .description("Live SSE subscribers of job event streams on this instance").register(registry);
    }

    /** @return the live subscribers of job streams on this instance, all queues */
    public int subscribers() {
        return tailers.values().stream().mapToInt(JobEventTailer::subscribers).sum();
    }

    /**
     * Registers a subscriber for the live events of a job (see {@link JobEventTailer#follow}).
     *
     * @param queue the job's queue
     * @param jobId the job id
     * @return the feed, once events appended from now on are sure to reach it
     */
    public Uni<LiveFeed> follow(JobQueue queue, String jobId) {
        return tailers.computeIfAbsent(queue.name(),
                name -> new JobEventTailer(queue.keys(), redis, store, context, bufferSize)).follow(jobId);
    }

    @PreDestroy
    void close() {
        tailers.values().forEach(JobEventTailer::close);
    }
}
