package dev.fencedqueue.llm;

import static dev.fencedqueue.llm.ServerText.abbreviate;

import com.fasterxml.jackson.databind.JsonNode;

/** One message of the research LLM's SSE stream: progress while it works, then a summary. */
public sealed interface LlmMessage {

    /**
     * {@code {"percent": n, "message": "..."}}.
     *
     * @param percent completion, 0 to 100
     * @param message what the LLM is doing, may be {@code null}
     */
    record Progress(int percent, String message) implements LlmMessage {
    }

    /**
     * {@code {"status": "completed", "summary": "..."}}.
     *
     * @param summary the research result
     */
    record Summary(String summary) implements LlmMessage {
    }

    /**
     * Reads one {@code data:} payload.
     *
     * @param node the parsed JSON payload
     * @return the message
     * @throws LlmException when the payload is neither a progress nor a summary message
     */
    static LlmMessage of(JsonNode node) {
        if (node.isObject() && node.hasNonNull("summary")
                && "completed".equals(node.path("status").asText("completed"))) {
            return new Summary(node.get("summary").asText());
        }
        if (node.isObject() && node.path("percent").isNumber()) {
            JsonNode message = node.get("message");
            return new Progress(node.get("percent").asInt(), message == null || message.isNull() ? null : message.asText());
        }
        throw new LlmException("malformed LLM message: " + abbreviate(node.toString()));
    }
}
