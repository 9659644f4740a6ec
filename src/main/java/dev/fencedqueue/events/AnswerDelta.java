package dev.fencedqueue.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An answer delta: the {@code progress} event with which a run publishes the next part of a streamed answer. Its data
 * is, in this order, {@code status}, {@code fencingToken}, {@code workerId}, {@code percent} ({@link #percent}),
 * {@code message} ({@link #message}), {@code delta} (the text), {@code completionTokens} (the answer's tokens so
 * far), {@code phase: "writing"}, and when present {@code maxTokens}, {@code reasoningDelta} (reasoning summary text)
 * and {@code sequenceNumber} (the upstream event it ends at). Everything but the texts and the counters follows from
 * the counters and the run, so the stream stores only those ({@link StoredEvent}).
 */
public final class AnswerDelta {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private AnswerDelta() {
    }

    /**
     * @param completionTokens the answer's completion tokens so far
     * @return the delta's {@code message}, e.g. {@code "answering: 13 tokens"}
     */
    public static String message(long completionTokens) {
        return "answering: " + completionTokens + " tokens";
    }

    /**
     * @param completionTokens the answer's completion tokens so far
     * @param maxTokens the most tokens of the answer ({@code fq.llm.request.max-tokens}), or {@code null} when not set
     * @return the tokens written as a share of {@code maxTokens}, 0 to 99 (the end says 100); 0 without it
     */
    public static int percent(long completionTokens, Long maxTokens) {
        return maxTokens == null || maxTokens <= 0 ? 0 : (int) Math.min(99, completionTokens * 100 / maxTokens);
    }

    /**
     * @return the stored form of {@code data}, or {@code null} when it is not an answer delta's shape (the caller
     *         checks that it reads back the same)
     */
    static StoredEvent.Entry store(ObjectNode data, String runWorker) {
        JsonNode delta = data.get("delta");
        JsonNode tokens = data.get("completionTokens");
        if (delta == null || !delta.isTextual() || tokens == null || !tokens.canConvertToLong()
                || !tokens.isIntegralNumber() || !runWorker.equals(data.path("workerId").textValue())
                || !"writing".equals(data.path("phase").textValue())) {
            return null;
        }
        ArrayNode counters = NODES.arrayNode().add(tokens.longValue());
        JsonNode max = data.get("maxTokens");
        JsonNode sequence = data.get("sequenceNumber");
        JsonNode reasoning = data.get("reasoningDelta");
        if ((max != null && !max.isIntegralNumber()) || (sequence != null && !sequence.isIntegralNumber())
                || (reasoning != null && !reasoning.isTextual())) {
            return null;
        }
        counters.add(max);
        counters.add(sequence);
        counters.add(reasoning);
        while (counters.size() > 1 && counters.get(counters.size() - 1).isNull()) {
            counters.remove(counters.size() - 1);
        }
        return new StoredEvent.Entry("progress", counters.toString(), delta.textValue());
    }

    /** @return the delta's data, read back from its counters and text */
    static ObjectNode read(long fencingToken, ArrayNode counters, String text, String runWorker) {
        long tokens = counters.path(0).asLong();
        JsonNode max = counters.path(1);
        ObjectNode data = JobEventData.of("progress", fencingToken, runWorker)
                .put("percent", percent(tokens, max.isIntegralNumber() ? max.longValue() : null))
                .put("message", message(tokens)).put("delta", text).put("completionTokens", tokens)
                .put("phase", "writing");
        if (max.isIntegralNumber()) {
            data.put("maxTokens", max.longValue());
        }
        if (counters.path(3).isTextual()) {
            data.put("reasoningDelta", counters.path(3).textValue());
        }
        if (counters.path(2).isIntegralNumber()) {
            data.put("sequenceNumber", counters.path(2).longValue());
        }
        return data;
    }
}
