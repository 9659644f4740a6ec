package dev.fencedqueue.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The metrics read from Redis ({@code fq.metrics.*}). */
@ConfigMapping(prefix = "fq.metrics")
public interface MetricsConfig {

    /**
     * How often the gauges of the queues this instance's workers serve ({@code fq_queue_jobs},
     * {@code fq_queue_oldest_waiting_age_seconds}) are read from Redis: a scrape reads the last values and never waits
     * for Redis.
     */
    @WithDefault("5s")
    Duration queueRefresh();
}
