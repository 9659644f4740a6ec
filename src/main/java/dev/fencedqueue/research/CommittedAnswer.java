package dev.fencedqueue.research;

import java.io.IOException;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.events.JobEvent;

/**
 * The part of an answer that earlier runs of a research job committed, read back from the {@code progress} events a
 * run may continue ({@link dev.fencedqueue.worker.JobContext#committedEvents()}): the concatenation of their
 * {@code delta} and {@code reasoningDelta}, and the running {@code completionTokens} of the last one.
 *
 * @param text the answer's text so far, never {@code null}
 * @param reasoning the reasoning so far, never {@code null}
 * @param completionTokens completion tokens the committed part cost (the last event's {@code completionTokens})
 */
record CommittedAnswer(String text, String reasoning, long completionTokens) {

    /** Nothing committed: the run starts the answer. */
    static final CommittedAnswer NONE = new CommittedAnswer("", "", 0);

    /**
     * @param events the events a run may continue, in stream order
     * @param json the mapper to read their data with
     * @return what their {@code progress} events with a {@code delta} or {@code reasoningDelta} say; {@link #NONE}
     *         when there are none
     * @throws IllegalStateException when an event's data is not JSON (the fenced writes only store JSON)
     */
    static CommittedAnswer of(List<JobEvent> events, ObjectMapper json) {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        long tokens = 0;
        for (JobEvent event : events) {
            if (!"progress".equals(event.type())) {
                continue;
            }
            JsonNode data;
            try {
                data = json.readTree(event.data());
            } catch (IOException e) {
                throw new IllegalStateException("event " + event.id() + " holds data that is not JSON", e);
            }
            if (!data.has("delta") && !data.has("reasoningDelta")) {
                continue;
            }
            text.append(data.path("delta").asText(""));
            reasoning.append(data.path("reasoningDelta").asText(""));
            tokens = data.path("completionTokens").asLong(tokens);
        }
        return text.isEmpty() && reasoning.isEmpty() ? NONE
                : new CommittedAnswer(text.toString(), reasoning.toString(), tokens);
    }

    /** @return whether there is answer text to continue (reasoning alone is not continued: it is not sent back) */
    boolean hasText() {
        return !text.isEmpty();
    }
}
