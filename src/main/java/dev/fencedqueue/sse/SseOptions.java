package dev.fencedqueue.sse;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.queue.EventsConfig;
import io.vertx.core.buffer.Buffer;

/**
 * How this instance writes its SSE responses, a job's stream and a flow's alike ({@code fq.events}).
 *
 * @param writeQueueMaxSize the bytes a connection may hold unsent before frames wait in its backlog
 *        ({@code fq.events.sse.subscriber-write-queue})
 * @param bufferLimit the frames that may wait in a connection's backlog (a replay's aside), and the live events of one
 *        job that may wait for its replay, before the reader is disconnected as slow ({@code fq.events.sse.subscriber-buffer})
 * @param retry the {@code retry:} block sent after the head ({@code fq.events.sse.client-retry})
 * @param onSlow called when a reader is disconnected for being slow; must not block or throw
 * @param json the application's object mapper, which reads the events' data
 */
record SseOptions(int writeQueueMaxSize, int bufferLimit, Buffer retry, Runnable onSlow, ObjectMapper json) {

    /**
     * @param config {@code fq.events}, must not be {@code null}
     * @param onSlow called when a reader is disconnected for being slow, must not be {@code null}
     * @param json the application's object mapper, must not be {@code null}
     * @return the options {@code config} sets (a write queue over {@link Integer#MAX_VALUE} bytes counts as that)
     */
    static SseOptions of(EventsConfig config, Runnable onSlow, ObjectMapper json) {
        return new SseOptions((int) Math.min(Integer.MAX_VALUE, config.sse().subscriberWriteQueue().asLongValue()),
                config.sse().subscriberBuffer(), SseFrames.retry(config.sse().clientRetry()), onSlow, json);
    }
}
