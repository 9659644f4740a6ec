package dev.fencedqueue.sse;

import dev.fencedqueue.events.JobEvent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The SSE bytes of the HTML Living Standard's event stream format, framed once per event. */
class SseFramesTest {

    @Test
    void framesAnEventWithItsIdTypeAndData() {
        JobEvent event = new JobEvent("1700000000000-3", "progress", 2, "{\"percent\":40}");
        assertThat(SseFrames.event(event).toString(StandardCharsets.UTF_8))
                .isEqualTo("id: 1700000000000-3\nevent: progress\ndata: {\"percent\":40}\n\n");
    }

    @Test
    void givesEachLineOfTheDataItsOwnDataField() {
        StreamMessage message = new StreamMessage("1-0", "progress", "line one\nline two\r\nline three\rend", null);
        assertThat(SseFrames.text(message))
                .isEqualTo("id: 1-0\nevent: progress\ndata: line one\ndata: line two\ndata: line three\ndata: end\n\n");
    }

    @Test
    void sendsResetsWithoutAnIdSoThatAResumeStartsAfterTheLastRealEvent() {
        // Tokens are Redis clock values in ms: framed as plain integers.
        assertThat(SseFrames.text(StreamMessage.reset(1795000000123L, 1795000000000L)))
                .startsWith("event: reset\ndata: {").doesNotContain("id:")
                .contains("\"fencingToken\":1795000000123").contains("\"previousFencingToken\":1795000000000")
                .endsWith("}\n\n");
    }

    @Test
    void framesKeepAlivesAsCommentsAndTheReconnectionTimeAlone() {
        assertThat(SseFrames.keepAlive().toString(StandardCharsets.UTF_8)).isEqualTo(": keep-alive\n\n");
        assertThat(SseFrames.retry(Duration.ofMillis(1500)).toString(StandardCharsets.UTF_8)).isEqualTo("retry: 1500\n\n");
    }

    @Test
    void writesTheSameFrameManyTimesWithoutConsumingIt() {
        var frame = SseFrames.event(new JobEvent("5-0", "completed", 1, "{}"));
        for (int i = 0; i < 3; i++) {
            assertThat(frame.getByteBuf().readableBytes()).isEqualTo(frame.length());
        }
        assertThat(frame.getByteBuf().isDirect()).isTrue();
    }
}
