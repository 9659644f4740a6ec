package dev.fencedqueue.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The SSE parsing rules the LLM clients rely on (WHATWG "Server-sent events"): {@code data:} lines joined, a blank line
 * dispatches, and an event the stream ends in, before its blank line, is dropped, so that a stream cut in the middle
 * of an upstream event commits nothing of that event and a continuation starts after the last whole one.
 */
class SseDecoderTest {

    @Test
    void dispatchesEachEventAtItsBlankLineJoiningItsDataLines() {
        List<String> events = decode("data: {\"a\":1}", "", ": a comment", "event: delta", "data: line one",
                "data:line two\r", "", "id: 7", "retry: 100", "data", "");

        assertThat(events).containsExactly("{\"a\":1}", "line one\nline two", "");
    }

    @Test
    void dropsTheEventAStreamIsCutInTheMiddleOf() {
        List<String> events = new ArrayList<>();
        SseDecoder decoder = new SseDecoder(events::add);
        decoder.line("data: {\"delta\":\"whole\"}");
        decoder.line("");
        decoder.line("data: {\"delta\":\"cut in the mid");

        decoder.end();

        assertThat(events).containsExactly("{\"delta\":\"whole\"}");
    }

    private static List<String> decode(String... lines) {
        List<String> events = new ArrayList<>();
        SseDecoder decoder = new SseDecoder(events::add);
        for (String line : lines) {
            decoder.line(line);
        }
        decoder.end();
        return events;
    }
}
