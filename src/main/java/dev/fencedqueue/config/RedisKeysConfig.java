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

    /** The longest {@code WAIT} for {@link #waitReplicas()} replicas. */
    @WithDefault("1s")
    Duration waitTimeout();
}
