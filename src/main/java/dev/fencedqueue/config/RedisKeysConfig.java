package dev.fencedqueue.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How fenced-queue uses Redis ({@code fq.redis.*}); where Redis is comes from {@code quarkus.redis.*}. */
@ConfigMapping(prefix = "fq.redis")
public interface RedisKeysConfig {

    /** Prefix of every key, before the queue's hash tag: {@code <prefix>:{<queue>}:...}. */
    @WithDefault("fq")
    String keyPrefix();

    /** Longest wait for one Redis command before it fails as unavailable (503 at the API). */
    @WithDefault("5s")
    Duration commandTimeout();
}
