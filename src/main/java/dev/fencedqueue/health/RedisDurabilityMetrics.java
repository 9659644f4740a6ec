package dev.fencedqueue.health;

import java.util.List;

import dev.fencedqueue.redis.MemoryState;
import dev.fencedqueue.redis.RedisMemory;
import dev.fencedqueue.redis.SharedConnection;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * What new jobs are made durable against and stored in, as gauges (read from what the service already tracks, no Redis
 * call on a scrape): {@code fq_redis_replicas_waited}, the replicas a new job waits for ({@code fq.redis.wait.replicas},
 * or what {@code auto} makes of it), and {@code fq_redis_replicas_online}, the replicas in sync the master had when last
 * asked (about once a second). While the second is below the first, new jobs are refused ({@code 503 not_replicated}):
 * the alert {@code FencedQueueRedisNotDurable} of {@code monitoring/prometheus-alerts.yml}. And
 * {@code fq_redis_used_memory_bytes} and {@code fq_redis_max_memory_bytes} (0: unlimited), Redis's {@code used_memory}
 * and {@code maxmemory} as {@link RedisMemory} last read them (NaN before): above {@code fq.redis.memory.max-ratio} of
 * the second new jobs are refused ({@code 503 redis_full}), the alert {@code FencedQueueRedisMemoryHigh}.
 */
@Startup
@ApplicationScoped
public class RedisDurabilityMetrics {

    private final MeterRegistry registry;
    /** Bound to this instance's connection: removed with this bean, so that a later one binds anew. */
    private final List<Gauge> gauges;

    public RedisDurabilityMetrics(SharedConnection redis, RedisMemory memory, MeterRegistry registry) {
        this.registry = registry;
        this.gauges = List.of(
                Gauge.builder("fq.redis.replicas.waited", redis, r -> r.durability().get("replicas"))
                        .description("Redis replicas a new job waits for").register(registry),
                Gauge.builder("fq.redis.replicas.online", redis, r -> r.durability().get("onlineReplicas"))
                        .description("Redis replicas in sync with the master, as last asked").register(registry),
                Gauge.builder("fq.redis.used.memory", memory,
                        m -> m.state().map(state -> (double) state.usedMemory()).orElse(Double.NaN))
                        .baseUnit("bytes").description("Redis's used_memory, as last read").register(registry),
                Gauge.builder("fq.redis.max.memory", memory,
                        m -> m.state().map(MemoryState::maxMemory).map(Long::doubleValue).orElse(Double.NaN))
                        .baseUnit("bytes").description("Redis's maxmemory (0: unlimited), as last read")
                        .register(registry));
    }

    @PreDestroy
    void close() {
        gauges.forEach(registry::remove);
    }
}
