package dev.fencedqueue.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/** The deep-research job type ({@code fq.research.*}). */
@ConfigMapping(prefix = "fq.research")
public interface ResearchConfig {

    /** Name of the queue research jobs run on; its Redis keys share the hash tag {@code {name}}. */
    @WithDefault("deep-research")
    String queue();

    /** Attempts per research job (the first run included); each retry is a new epoch. */
    @WithDefault("3")
    @Min(1)
    int attempts();

    /** Base delay of the exponential backoff between attempts. */
    @WithDefault("5s")
    Duration backoffDelay();

    /** How long an {@code Idempotency-Key} keeps returning the same job; it outlives the job's removal. */
    @WithDefault("24h")
    Duration idempotencyTtl();
}
