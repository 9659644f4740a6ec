package dev.fencedqueue.llm;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.fencedqueue.Failures;
import io.smallrye.mutiny.Multi;
import io.vertx.core.http.HttpClientResponse;
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
                Throwable broken = exchange.brokenBeforeRead().get();
                if (broken != null) {
                    // Broke while it waited for this reader (the server closed the connection): Vert.x told the
                    // opening's handler and will not tell this one; waiting for an end would wait for ever.
                    emitter.fail(new LlmException(server + "'s stream broke before it was read: " + Failures.describe(broken),
                            broken));
                    return;
                }
                SseDecoder decoder = new SseDecoder(emitter::emit);
                RecordParser parser = RecordParser.newDelimited("\n");
                parser.handler(line -> decoder.line(line.toString(StandardCharsets.UTF_8)));
                // When bytes last came (a line or part of one), to tell a silence cut by the idle timeout.
                long[] lastRead = {System.nanoTime()};
                HttpClientResponse response = exchange.response();
                try {
                    response.handler(bytes -> {
                        lastRead[0] = System.nanoTime();
                        parser.handle(bytes);
                    });
                    response.exceptionHandler(failure -> {
                        if (!terminated.get()) {
                            emitter.fail(new LlmException(
                                    brokenBy(failure, server, lastRead[0], exchange.idleTimeout()), failure));
                        }
                    });
                    response.endHandler(ignored -> {
                        decoder.end();
                        ended.set(true);
                        emitter.complete();
                    });
                } catch (IllegalStateException e) {
                    // Vert.x refuses handlers on a response that already ended: its body went by unread. Failing
                    // here (the queue retries the attempt) beats waiting for an end that was already delivered.
                    emitter.fail(new LlmException(server + "'s response ended before it was read", e));
                    return;
                }
                response.resume();
            });
        });
    }

    /**
     * The reason a broken stream gives: the idle timeout when it broke after a silence of most of it. The connection's
     * idle timer counts from the socket's last read, a little before the bytes reach the handler here (the response
     * waits paused until it is read), so a silence of at least three quarters of the timeout counts as one.
     */
    private static String brokenBy(Throwable failure, String server, long lastReadNanos, Duration idleTimeout) {
        Duration silent = Duration.ofNanos(System.nanoTime() - lastReadNanos);
        if (!idleTimeout.isZero() && !idleTimeout.isNegative() && silent.multipliedBy(4).compareTo(idleTimeout.multipliedBy(3)) >= 0) {
            return server + " sent nothing for " + silent.toMillis() + " ms and the connection was closed "
                    + "(fq.llm.stream.idle-timeout: " + idleTimeout.toMillis() + " ms)";
        }
        return server + "'s stream broke: " + Failures.describe(failure);
    }
}
