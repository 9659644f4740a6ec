package dev.fencedqueue.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;

/** A job's stream stores each event compactly, and every reader gets back exactly the JSON that was written. */
class StoredEventTest {

    private static final long TOKEN = 1_795_000_000_123L;
    private static final String WORKER = "worker-6f1c2a9e";
    /** Stands in for the application's object mapper, which reads the stored data. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String roundTrip(String type, ObjectNode data) {
        StoredEvent.Entry entry = StoredEvent.of(type, TOKEN, WORKER, data, JSON);
        return StoredEvent.read(entry.type(), TOKEN, entry.data(), entry.text(), entry.isAnswerDelta() ? WORKER : null,
                JSON);
    }

    private static ObjectNode answerDelta(String text, long tokens) {
        return JobEventData.of("progress", TOKEN, WORKER).put("percent", AnswerDelta.percent(tokens, 2000L))
                .put("message", AnswerDelta.message(tokens)).put("delta", text).put("completionTokens", tokens)
                .put("phase", "writing").put("maxTokens", 2000);
    }

    @Test
    void storesAnAnswerDeltaAsItsCountersAndItsTextAlone() {
        ObjectNode data = answerDelta("Fencing tokens \"order\" writes,\nnot locks.", 130);

        StoredEvent.Entry entry = StoredEvent.of("progress", TOKEN, WORKER, data, JSON);

        assertThat(entry.data()).isEqualTo("[130,2000]");
        assertThat(entry.text()).isEqualTo("Fencing tokens \"order\" writes,\nnot locks.");
        assertThat(roundTrip("progress", data)).isEqualTo(data.toString());
    }

    @Test
    void keepsReasoningAndTheUpstreamSequenceOfAnAnswerDelta() {
        ObjectNode data = JobEventData.of("progress", TOKEN, WORKER).put("percent", 0)
                .put("message", AnswerDelta.message(7)).put("delta", "").put("completionTokens", 7)
                .put("phase", "writing").put("reasoningDelta", "Weighing the sources").put("sequenceNumber", 41);

        assertThat(StoredEvent.of("progress", TOKEN, WORKER, data, JSON).data())
                .isEqualTo("[7,null,41,\"Weighing the sources\"]");
        assertThat(roundTrip("progress", data)).isEqualTo(data.toString());
    }

    @Test
    void storesWholeAProgressThatDoesNotReadBackTheSame() {
        ObjectNode otherMessage = answerDelta("text", 13).put("message", "answering fast");
        ObjectNode otherWorker = answerDelta("text", 13).put("workerId", "someone-else");
        ObjectNode extraField = answerDelta("text", 13).put("source", "web");
        ObjectNode plain = JobEventData.of("progress", TOKEN, WORKER).put("percent", 40).put("message", "searching");

        for (ObjectNode data : new ObjectNode[] { otherMessage, otherWorker, extraField, plain }) {
            StoredEvent.Entry entry = StoredEvent.of("progress", TOKEN, WORKER, data, JSON);
            assertThat(entry.isAnswerDelta()).as(data.toString()).isFalse();
            assertThat(entry.data()).doesNotContain("\"status\"", "\"fencingToken\"");
            assertThat(roundTrip("progress", data)).isEqualTo(data.toString());
        }
    }

    @Test
    void leavesOutOnlyTheTypeAndTokenTheEntryHolds() {
        ObjectNode completed = JobEventData.of("completed", TOKEN, WORKER).put("result", "done");
        ObjectNode custom = JobEventData.of("plan", TOKEN, WORKER).put("subQuestions", 3);

        assertThat(StoredEvent.of("completed", TOKEN, WORKER, completed, JSON).data())
                .isEqualTo("{\"workerId\":\"worker-6f1c2a9e\",\"result\":\"done\"}");
        assertThat(roundTrip("completed", completed)).isEqualTo(completed.toString());
        assertThat(roundTrip("plan", custom)).isEqualTo(custom.toString());
        assertThat(StoredEvent.read("completed", TOKEN, StoredEvent.completed(WORKER, "\"done\""), "", null, JSON))
                .isEqualTo(JobEventData.completed(TOKEN, WORKER, "\"done\""));
    }

    @Test
    void readsTheDataOfAnEventAScriptWroteWithoutAWorker() {
        assertThat(StoredEvent.read("aborted", 0, "{\"reason\":\"user abort\"}", "", null, JSON))
                .isEqualTo("{\"status\":\"aborted\",\"fencingToken\":0,\"reason\":\"user abort\"}");
        assertThat(StoredEvent.read("started", TOKEN, "{}", "", null, JSON))
                .isEqualTo("{\"status\":\"started\",\"fencingToken\":" + TOKEN + "}");
    }

    @Test
    void readsAnEntryWrittenWholeBeforeTheCompactFormAsItWasWritten() {
        String whole = JobEventData.of("progress", TOKEN, WORKER).put("percent", 5).put("message", "m")
                .put("delta", "x").toString();

        assertThat(StoredEvent.read("progress", TOKEN, whole, "", null, JSON)).isEqualTo(whole);
    }
}
