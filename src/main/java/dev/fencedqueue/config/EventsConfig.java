package dev.fencedqueue.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/** Job event streams and their SSE delivery ({@code fq.events.*}). */
@ConfigMapping(prefix = "fq.events")
public interface EventsConfig {

    /** Interval of the SSE keep-alive comment sent while a stream is idle. */
    @WithDefault("15s")
    Duration keepAlive();

    /** Upper bound of a job's event stream, in entries (approximate trimming by Redis). */
    @WithDefault("10000")
    @Min(100)
    int maxStreamLength();

    /** Upper bound of a queue's event stream ({@code waiting}, {@code active}, {@code completed}, ...), in entries. */
    @WithDefault("10000")
    @Min(100)
    int queueStreamMaxLength();

    /** Events buffered per SSE subscriber before a slow subscriber is disconnected (it can resume with Last-Event-ID). */
    @WithDefault("10000")
    @Min(16)
    int subscriberBuffer();

    /**
     * The reconnection time sent to SSE clients in a {@code retry:} field with the first event of every stream: how
     * long a browser's {@code EventSource} waits before it reconnects after a dropped connection.
     */
    @WithDefault("1s")
    Duration clientRetry();
}
