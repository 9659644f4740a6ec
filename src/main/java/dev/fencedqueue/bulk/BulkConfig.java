package dev.fencedqueue.bulk;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/** Chunked bulk jobs ({@code fq.bulk.*}): the notification fan-out and its runtime. */
@ConfigMapping(prefix = "fq.bulk")
public interface BulkConfig {

    /**
     * Where chunked jobs commit their chunks with their fenced cursors: {@code postgresql} (one transaction per
     * chunk, the default; needs {@code quarkus.datasource.jdbc.url}, which dev mode and tests set up themselves)
     * or {@code redis} (one Lua script per chunk, for users without a database; the notification API then keeps
     * subscribers, notifications and the push outbox in Redis, and no PostgreSQL is needed).
     */
    @WithDefault("postgresql")
    Sink sink();

    /** Name of the queue the notification fan-outs run on; its Redis keys share the hash tag {@code {name}}. */
    @WithDefault("notifications")
    String queue();

    /** Items per chunk when a job does not say: one chunk is one sink transaction. */
    @WithDefault("500")
    @Min(1)
    @Max(10000)
    int chunkSize();

    /**
     * How long an operator's abort flag lives: a running chunked job stops at its next chunk boundary while the
     * flag is set; a flag nobody acted on (the job ended meanwhile) expires instead of stopping a later run.
     */
    @WithDefault("1h")
    Duration abortFlagTtl();

    /**
     * What a fan-out does when another job of its channel (its single-flight key) has not finished:
     * {@code wait} (accepted; it runs once the other one stopped running) or {@code refuse} (409).
     */
    @WithDefault("wait")
    SingleFlight singleFlight();

    /** How often a job that waits for its single-flight key tries to take it. */
    @WithDefault("1s")
    Duration singleFlightRetry();

    /** The sinks chunked jobs can commit into. */
    enum Sink {
        /** PostgreSQL: chunk writes, cursor and fencing check in one transaction. */
        POSTGRESQL,
        /** Redis: chunk writes, cursor and fencing check in one Lua script. */
        REDIS
    }

    /** What a chunked job does when another running job holds its single-flight key. */
    enum SingleFlight {
        /** It waits, running, until the key is free. */
        WAIT,
        /** The second job is not accepted at all: 409 Conflict. */
        REFUSE
    }
}
