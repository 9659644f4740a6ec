package dev.fencedqueue.llm;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import dev.fencedqueue.llm.ResponsesClient.ResponseEvent;
import io.smallrye.mutiny.Multi;

/**
 * What a Responses API answer holds, as the {@link ChatChunk}s a research job publishes: from the events of a stream
 * ({@link #of}), or from an ended response object past what earlier runs committed ({@link #rest}).
 */
public final class ResponseChunks {

    private ResponseChunks() {
    }

    /**
     * @param event an event of a response's stream, must not be {@code null}
     * @return the chunk it stands for: {@code response.output_text.delta} text; {@code
     *         response.reasoning_summary_text.delta} (OpenAI) and {@code response.reasoning_text.delta} (llama.cpp,
     *         vLLM) reasoning; a tool's progress ({@code response.web_search_call.searching}) an activity;
     *         {@code response.completed} the finish reason {@code stop}, {@code response.incomplete} its reason
     *         ({@code max_output_tokens} as {@code length}), both with the usage; else {@code null}, for an event
     *         that carries nothing to publish
     * @throws LlmException for {@code response.failed} and {@code response.cancelled}, naming the server's reason
     */
    public static ChatChunk of(ResponseEvent event) {
        JsonNode data = event.data();
        String type = event.type();
        long sequence = event.sequence();
        if (type.equals("response.output_text.delta")) {
            return new ChatChunk(data.path("delta").asText(""), null, null, null, sequence, null);
        }
        if (type.equals("response.reasoning_summary_text.delta") || type.equals("response.reasoning_text.delta")) {
            return new ChatChunk(null, data.path("delta").asText(""), null, null, sequence, null);
        }
        if (type.startsWith("response.") && type.contains("_call.")) { // a tool's progress: web search, file search
            String tool = type.substring("response.".length(), type.indexOf("_call.")).replace('_', ' ');
            String phase = type.substring(type.indexOf("_call.") + "_call.".length()).replace('_', ' ');
            return new ChatChunk(null, null, null, null, sequence, tool + ": " + phase);
        }
        if (type.equals("response.completed") || type.equals("response.incomplete")) {
            String reason = type.equals("response.completed") ? "stop"
                    : data.path("response").path("incomplete_details").path("reason").asText("length");
            return new ChatChunk(null, null, "max_output_tokens".equals(reason) ? "length" : reason,
                    usage(data.path("response")), sequence, null);
        }
        if (type.equals("response.failed") || type.equals("response.cancelled")) {
            throw new LlmException("the LLM server's response ended as " + type.substring("response.".length()) + ": "
                    + data.path("response").path("error").path("message").asText("no reason given"));
        }
        return null;
    }

    /**
     * @param response an ended response object ({@code completed} or {@code incomplete}), as retrieved
     * @param textBefore the start of its text already had (what earlier runs committed), must not be {@code null}
     * @param reasoningBefore the start of its reasoning already had, must not be {@code null}
     * @param deltaChars characters per text chunk ({@code fq.llm.stream.delta-chars})
     * @return its reasoning and text past the committed part, as chunks, then its finish reason ({@code stop} for
     *         {@code completed}, else {@code length}) and usage
     */
    public static Multi<ChatChunk> rest(JsonNode response, String textBefore, String reasoningBefore, int deltaChars) {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        for (JsonNode item : response.path("output")) {
            if ("message".equals(item.path("type").asText())) {
                item.path("content").forEach(part -> text.append(part.path("text").asText("")));
            } else if ("reasoning".equals(item.path("type").asText())) {
                item.path("summary").forEach(part -> reasoning.append(part.path("text").asText("")));
            }
        }
        List<ChatChunk> chunks = new ArrayList<>();
        String newReasoning = reasoning.length() >= reasoningBefore.length()
                ? reasoning.substring(reasoningBefore.length()) : "";
        if (!newReasoning.isEmpty()) {
            chunks.add(new ChatChunk(null, newReasoning, null, null));
        }
        String newText = text.length() >= textBefore.length() ? text.substring(textBefore.length()) : "";
        int step = Math.max(1, deltaChars);
        for (int i = 0; i < newText.length(); i += step) {
            chunks.add(new ChatChunk(newText.substring(i, Math.min(newText.length(), i + step)), null, null, null));
        }
        chunks.add(new ChatChunk(null, null, "completed".equals(response.path("status").asText()) ? "stop" : "length",
                usage(response), -1, null));
        return Multi.createFrom().iterable(chunks);
    }

    private static ChatChunk.Usage usage(JsonNode response) {
        JsonNode usage = response.path("usage");
        return usage.isObject() ? new ChatChunk.Usage(usage.path("input_tokens").asLong(),
                usage.path("output_tokens").asLong(), usage.path("total_tokens").asLong()) : null;
    }
}
