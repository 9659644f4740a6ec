package dev.fencedqueue.research;

import java.nio.charset.StandardCharsets;
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
     *         when the response breaks (the idle timeout included). Cancelling it, or a failure downstream,
     *         closes the connection at once.
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
                parser.handler(line -> decoder.line(line.toString(StandardCharsets.UTF_8)));
                parser.exceptionHandler(failure -> {
                    if (!terminated.get()) {
                        emitter.fail(new LlmException(server + "'s stream broke: " + failure.getMessage(), failure));
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
}
