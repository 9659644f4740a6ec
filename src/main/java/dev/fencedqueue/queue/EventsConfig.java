package dev.fencedqueue.queue;

import java.time.Duration;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/** Job and queue event streams ({@code fq.events.*}) and their SSE delivery ({@code fq.events.sse.*}). */
@ConfigMapping(prefix = "fq.events")
public interface EventsConfig {

    /** Upper bound of a job's event stream, in entries (approximate trimming by Redis). */
    @WithDefault("10000")
    @Min(100)
    int maxStreamLength();

    /** Upper bound of a queue's event stream ({@code waiting}, {@code active}, {@code completed}, ...), in entries. */
    @WithDefault("10000")
    @Min(100)
    int queueStreamMaxLength();

    /** The SSE delivery of job and queue events ({@code fq.events.sse.*}). */
    Sse sse();

    /** The SSE delivery of job and queue events ({@code fq.events.sse.*}). */
    interface Sse {

        /** Interval of the SSE keep-alive comment sent while a stream is idle. */
        @WithDefault("15s")
        Duration keepAlive();

        /**
         * Events that may wait for one SSE subscriber (live events that arrive while its replay is written, or frames
         * its connection has not taken) before it is disconnected as too slow; its client resumes with Last-Event-ID.
         * The frames themselves are shared by all subscribers of a job: a waiting event costs a reference.
         */
        @WithDefault("10000")
        @Min(16)
        int subscriberBuffer();

        /**
         * Bytes an SSE subscriber's connection may hold unsent (Netty's high water mark) before its events wait in the
         * subscriber buffer instead.
         */
        @WithDefault("64K")
        MemorySize subscriberWriteQueue();

        /**
         * The reconnection time sent to SSE clients in a {@code retry:} field with the first event of every stream: how
         * long a browser's {@code EventSource} waits before it reconnects after a dropped connection.
         */
        @WithDefault("1s")
        Duration clientRetry();
    }
}
