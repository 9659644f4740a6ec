package dev.fencedqueue.research;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import dev.fencedqueue.llm.ChatChunk;
import org.junit.jupiter.api.Test;

/** How an answer accumulates, batches its deltas and stops at its size cap (no server needed). */
class ChatAnswerTest {

    @Test
    void batchesByCharactersOrTimeAndKeepsTheWholeText() {
        ChatAnswer answer = new ChatAnswer(1000, 10, 1_000_000_000L, 0);
        answer.add(new ChatChunk("Hello", null, null, null));
        assertThat(answer.due(1)).as("5 characters, 1 ns").isFalse();
        answer.add(new ChatChunk(" world", null, null, null));
        assertThat(answer.due(2)).as("11 characters").isTrue();
        assertThat(answer.drain(2)).containsExactly("Hello world", "");
        answer.add(new ChatChunk("!", "hmm", null, null));
        assertThat(answer.due(3)).isFalse();
        assertThat(answer.due(1_000_000_003L)).as("a second later").isTrue();
        assertThat(answer.drain(1_000_000_003L)).containsExactly("!", "hmm");
        assertThat(answer.pending()).isFalse();
        assertThat(answer.completionTokens()).as("counted: one per chunk with text").isEqualTo(3);

        answer.add(new ChatChunk(null, null, "stop", null));
        answer.add(new ChatChunk(null, null, null, new ChatChunk.Usage(7, 5, 12)));
        Map<String, Object> result = answer.result("m");
        assertThat(result).containsEntry("text", "Hello world!").containsEntry("reasoning", "hmm")
                .containsEntry("finishReason", "stop").containsEntry("truncated", false).containsEntry("model", "m");
        assertThat(answer.completionTokens()).as("the server's count wins").isEqualTo(5);
        assertThat(result.get("usage")).isEqualTo(Map.of("promptTokens", 7L, "completionTokens", 5L,
                "totalTokens", 12L, "counted", false));
    }

    @Test
    void stopsAtTheSizeCapAndMarksTheAnswerTruncated() {
        ChatAnswer answer = new ChatAnswer(8, 100, Long.MAX_VALUE, 0);
        assertThat(answer.add(new ChatChunk("12345", null, null, null))).isTrue();
        assertThat(answer.add(new ChatChunk("67890", null, null, null))).as("past the cap: read no more").isFalse();

        Map<String, Object> result = answer.result("m");
        assertThat(result).containsEntry("text", "12345678").containsEntry("truncated", true)
                .containsEntry("finishReason", "max_response_chars");
        assertThat(answer.drain(1)[0]).isEqualTo("12345678");
    }

    @Test
    void lengthAndContentFilterMarkTheAnswerTruncated() {
        for (String reason : new String[] {"length", "content_filter"}) {
            ChatAnswer answer = new ChatAnswer(100, 100, Long.MAX_VALUE, 0);
            answer.add(new ChatChunk("cut", null, reason, null));
            assertThat(answer.result("m")).containsEntry("finishReason", reason).containsEntry("truncated", true);
        }
    }
}
