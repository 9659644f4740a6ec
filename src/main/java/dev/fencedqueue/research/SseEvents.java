package dev.fencedqueue.research;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.smallrye.mutiny.Multi;
import io.vertx.core.parsetools.RecordParser;

/** The data of the SSE events of an open LLM exchange ({@link SseDecoder} does the parsing). */
final class SseEvents {

    private SseEvents() {
    }

    /**
     * @param exchange the open exchange, paused
     * @param server the server's name for messages, e.g. {@code the research LLM}
     * @return each event's data, in order; completes at the end of the response; fails with {@link LlmException}
     *         when the response breaks, saying so when it broke because the server went silent for longer than the
     *         exchange's idle timeout. Cancelling it, or a failure downstream, closes the connection at once.
     */
    static Multi<String> of(LlmExchange exchange, String server) {
        return Multi.createFrom().emitter(emitter -> {
            AtomicBoolean ended = new AtomicBoolean();
            AtomicBoolean terminated = new AtomicBoolean();
            emitter.onTermination(() -> {
                terminated.set(true);
                if (!ended.get()) {
                    exchange.abort();
                }
            });
            exchange.onContext(() -> {
                if (terminated.get()) {
                    return;
                }
                SseDecoder decoder = new SseDecoder(emitter::emit);
                RecordParser parser = RecordParser.newDelimited("\n", exchange.response());
                long[] lastRead = {System.nanoTime()};
                parser.handler(line -> {
                    lastRead[0] = System.nanoTime();
                    decoder.line(line.toString(StandardCharsets.UTF_8));
                });
                parser.exceptionHandler(failure -> {
                    if (!terminated.get()) {
                        emitter.fail(new LlmException(brokenBy(failure, server, lastRead[0], exchange.idleTimeout()),
                                failure));
                    }
                });
                parser.endHandler(ignored -> {
                    decoder.end();
                    ended.set(true);
                    emitter.complete();
                });
                parser.resume();
            });
        });
    }

    /** The reason a broken stream gives: the idle timeout when nothing came for that long (the connection closed). */
    private static String brokenBy(Throwable failure, String server, long lastReadNanos, Duration idleTimeout) {
        Duration silent = Duration.ofNanos(System.nanoTime() - lastReadNanos);
        if (silent.compareTo(idleTimeout) >= 0) {
            return server + " sent nothing for " + silent.toMillis() + " ms, longer than fq.llm.idle-timeout ("
                    + idleTimeout.toMillis() + " ms): the connection was closed";
        }
        return server + "'s stream broke: " + failure.getMessage();
    }
}
