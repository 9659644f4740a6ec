package dev.fencedqueue.llm;

import static dev.fencedqueue.llm.ServerText.abbreviate;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One {@code data:} chunk of an OpenAI-compatible streaming chat completion ({@code chat.completion.chunk}): the
 * first choice's {@code delta.content} and {@code delta.reasoning_content} (sent by reasoning models on vLLM,
 * DeepSeek and others), its {@code finish_reason}, and the {@code usage} of the final chunk (sent with
 * {@code stream_options.include_usage}).
 *
 * @param content new answer text, or {@code null}
 * @param reasoning new reasoning text, or {@code null}
 * @param finishReason {@code stop}, {@code length}, {@code content_filter}, {@code tool_calls} ..., or {@code null}
 *        while the answer goes on
 * @param usage the token counts, or {@code null} (every chunk but the last)
 * @param sequence the upstream event's {@code sequence_number} (Responses API), or -1 when the protocol has none
 * @param activity what the model does besides writing (Responses API: a web search's progress), shown as its own
 *        {@code progress} event, or {@code null}
 */
public record ChatChunk(String content, String reasoning, String finishReason, Usage usage, long sequence,
        String activity) {

    /** A chunk of a protocol without sequence numbers (chat completions). */
    public ChatChunk(String content, String reasoning, String finishReason, Usage usage) {
        this(content, reasoning, finishReason, usage, -1, null);
    }

    /**
     * Token counts as the server reports them.
     *
     * @param promptTokens tokens of the request's messages
     * @param completionTokens tokens of the answer (reasoning included)
     * @param totalTokens both
     */
    public record Usage(long promptTokens, long completionTokens, long totalTokens) {
    }

    /**
     * @param text the answer text in place of this chunk's, or {@code null} for none
     * @return a copy of this chunk with {@code text} as its {@link #content()}
     */
    public ChatChunk withContent(String text) {
        return new ChatChunk(text, reasoning, finishReason, usage, sequence, activity);
    }

    /**
     * Reads one chunk.
     *
     * @param node the parsed {@code data:} payload
     * @return the chunk
     * @throws LlmException when the server sent an {@code error} object in the stream, or the chunk has neither
     *         {@code choices} nor {@code usage}
     */
    static ChatChunk of(JsonNode node) {
        if (!node.isObject()) {
            throw new LlmException("malformed chat completion chunk, not an object: " + abbreviate(node.toString()));
        }
        JsonNode error = node.get("error");
        if (error != null && !error.isNull()) {
            String message = error.isObject() ? error.path("message").asText(error.toString()) : error.asText();
            throw new LlmException("the LLM server sent an error in its stream: " + abbreviate(message));
        }
        JsonNode choices = node.get("choices");
        JsonNode usage = node.get("usage");
        boolean hasUsage = usage != null && usage.isObject();
        if ((choices == null || !choices.isArray()) && !hasUsage) {
            throw new LlmException("malformed chat completion chunk, without `choices`: " + abbreviate(node.toString()));
        }
        JsonNode choice = choices != null && choices.isArray() && !choices.isEmpty() ? choices.get(0) : null;
        JsonNode delta = choice == null ? null : choice.get("delta");
        return new ChatChunk(text(delta, "content"), text(delta, "reasoning_content"),
                choice == null ? null : text(choice, "finish_reason"),
                hasUsage ? new Usage(usage.path("prompt_tokens").asLong(), usage.path("completion_tokens").asLong(),
                        usage.path("total_tokens").asLong()) : null);
    }

    private static String text(JsonNode parent, String field) {
        JsonNode value = parent == null ? null : parent.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
