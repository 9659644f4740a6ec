package dev.fencedqueue.sse;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.redis.SharedConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The event tailers of this instance, one per queue, all on one Vert.x context created at startup, and the keep-alive
 * comments of their subscribers (one timer for all). Publishes {@code fq_sse_subscribers} (gauge): live SSE
 * subscribers of job streams on this instance, all queues; {@code fq_sse_slow_disconnects_total} (counter):
 * subscribers disconnected because they could not keep up (they resume with {@code Last-Event-ID}).
 */
@Startup
@ApplicationScoped
public class JobEventTailers {

    private final SharedConnection redis;
    private final JobEventStore store;
    private final Context context;
    private final Counter slowDisconnects;
    private final Duration keepAlive;
    private final long keepAliveTimer;
    private final Map<String, JobEventTailer> tailers = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    /** Bound to this instance (weakly, as Micrometer's gauges are): removed with it, so that a later one binds anew. */
    private final Gauge subscribersGauge;
    private final ObjectMapper json;

    public JobEventTailers(SharedConnection redis, JobEventStore store, EventsConfig config, Vertx vertx,
            MeterRegistry registry, ObjectMapper json) {
        this.redis = redis;
        this.json = json;
        this.store = store;
        this.context = vertx.getOrCreateContext();
        this.keepAlive = config.sse().keepAlive();
        this.registry = registry;
        this.subscribersGauge = Gauge.builder("fq.sse.subscribers", this, JobEventTailers::subscribers)
                .description("Live SSE subscribers of job event streams on this instance").register(registry);
        this.slowDisconnects = Counter.builder("fq.sse.slow.disconnects")
                .description("SSE subscribers disconnected because they could not keep up").register(registry);
        // Every half interval, a comment to the subscribers idle for half an interval or more: none stays silent
        // longer than the interval, and one that gets events more often than that gets no comment at all.
        Duration half = keepAlive.dividedBy(2);
        this.keepAliveTimer = vertx.setPeriodic(Math.max(1, half.toMillis()),
                id -> tailers.values().forEach(tailer -> tailer.keepAlive(half)));
    }

    /** Counts a subscriber disconnected for being slow (any thread). */
    void slowDisconnect() {
        slowDisconnects.increment();
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
     * @param subscriber the subscriber
     * @return the action that unregisters it, once events appended from now on are sure to reach it
     */
    Uni<Runnable> follow(JobQueue queue, String jobId, TailSubscriber subscriber) {
        return tailers.computeIfAbsent(queue.name(),
                name -> new JobEventTailer(queue.keys(), redis, store, context, json)).follow(jobId, subscriber);
    }

    @PreDestroy
    void close() {
        registry.remove(subscribersGauge);
        context.owner().cancelTimer(keepAliveTimer);
        tailers.values().forEach(JobEventTailer::close);
    }
}
