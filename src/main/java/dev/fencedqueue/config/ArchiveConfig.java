package dev.fencedqueue.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * The archive of finished jobs ({@code fq.archive.*}): a grace period after a job ends, its record and its event
 * stream move from Redis to PostgreSQL, so that Redis holds live work only; readers find it there transparently.
 */
@ConfigMapping(prefix = "fq.archive")
public interface ArchiveConfig {

    /**
     * Whether finished jobs move to PostgreSQL. Takes effect only where a datasource is configured
     * ({@code quarkus.datasource.jdbc.url}; dev mode and the tests start an embedded PostgreSQL): without one, or
     * with {@code false}, Redis keeps finished jobs by their retention ({@code removeOnComplete},
     * {@code removeOnFail}), as it did before the archive.
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * How long a finished job stays in Redis before it moves, so that its live readers (an SSE stream replaying its
     * end) finish reading it there. Readers that are still reading when it moves go on from the archive.
     */
    @WithDefault("1m")
    Duration grace();

    /**
     * How long the archive keeps a job after it finished. The archive is partitioned by day; a day's partition is
     * dropped whole once all of its jobs are older than this.
     */
    @WithDefault("30d")
    Duration keepFor();

    /** How often each instance looks for finished jobs whose grace period is over, per queue it serves. */
    @WithDefault("5s")
    Duration interval();

    /**
     * Most jobs moved per PostgreSQL transaction; each is held in memory whole (its stream included: up to about a
     * megabyte for a long deep-research answer) while its batch is written.
     */
    @WithDefault("20")
    @Min(1)
    @Max(10000)
    int batch();
}
