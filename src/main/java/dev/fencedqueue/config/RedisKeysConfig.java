package dev.fencedqueue.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/** How fenced-queue uses Redis ({@code fq.redis.*}); where Redis is comes from {@code quarkus.redis.*}. */
@ConfigMapping(prefix = "fq.redis")
public interface RedisKeysConfig {

    /** Prefix of every key, before the queue's hash tag: {@code <prefix>:{<queue>}:...}. */
    @WithDefault("fq")
    String keyPrefix();

    /** Longest wait for one Redis command before it fails as unavailable (503 at the API). */
    @WithDefault("5s")
    Duration commandTimeout();

    /**
     * Replicas that must have received a new job before it is accepted ({@code 202}): after adding it, the service
     * sends Redis's {@code WAIT <replicas> <wait-timeout>} on the same connection. 0 (the default) waits for none: a
     * failover to a replica that had not received the job then loses it. With 1 or more, a job that too few replicas
     * acknowledged within {@link #waitTimeout()} is answered {@code 503} (it may or may not survive a failover; retry
     * with the same {@code Idempotency-Key}).
     */
    @WithDefault("0")
    @Min(0)
    int waitReplicas();

    /**
     * Whether a new job must also be on disk before it is accepted ({@code 202}): the wait after adding it is Redis's
     * {@code WAITAOF 1 <wait-replicas> <wait-timeout>} instead of {@code WAIT}, which returns once the master has
     * written the job to its append-only file and {@code fsync}ed it, and {@link #waitReplicas()} replicas have too.
     * For {@code appendfsync everysec}, where a crash of the machine loses up to a second of acknowledged writes. Needs
     * Redis 7.2 or later with {@code appendonly yes} on the master (and on the replicas counted): otherwise every
     * new job is answered {@code 503} and the {@code redis-durability} readiness check is down. Under
     * {@code appendfsync everysec} a job waits up to about a second for the next {@code fsync}: set
     * {@link #waitTimeout()} to 2 s or more there.
     */
    @WithDefault("false")
    boolean waitAof();

    /**
     * The longest {@code WAIT} or {@code WAITAOF} for what {@link #waitReplicas()} and {@link #waitAof()} ask; must be
     * positive (Redis takes 0 as "forever").
     */
    @WithDefault("1s")
    Duration waitTimeout();
}
