package dev.fencedqueue.research;

import static dev.fencedqueue.research.ResumedAnswerTest.awaitCompleted;
import static dev.fencedqueue.research.ResumedAnswerTest.awaitTokens;
import static dev.fencedqueue.research.ResumedAnswerTest.uninterrupted;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static dev.fencedqueue.worker.WorkerTestAccess.thaw;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.stream.Collectors;

import dev.fencedqueue.llm.ResponseChunks;
import dev.fencedqueue.llm.ResponsesClient;
import dev.fencedqueue.llm.ResponsesClient.ResponseEvent;
import dev.fencedqueue.simulator.ResponsesSimulator;
import dev.fencedqueue.simulator.SimulatorAnswers;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * OpenAI's Responses API in background mode (the simulator): a takeover re-attaches to the response the first run
 * started, after the last committed sequence number, so nothing is generated twice and the answer equals the
 * uninterrupted one; a response that can no longer be streamed again is polled; one that is gone, failed or stuck in
 * {@code queued} is given up and the answer continued in a new response; the zombie never cancels the response, an
 * abort does. A server that streams without sequence numbers and retrieves nothing (as llama.cpp's server does) gets
 * whole answers, and a takeover continues its answer; a stream that ends without its terminal event fails the attempt.
 */
@QuarkusTest
@RuntimeProfile(OpenAiResumeProfile.Responses.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ResponsesTakeoverTest extends ResearchTestSupport {

    @Inject
    ResponsesSimulator simulator;

    @Inject
    ResponsesClient responses;

    @Test
    void aTakeoverReattachesToTheResponseAndNothingIsGeneratedTwice() {
        String question = "re-attached";
        String jobId = takenOverAt(question, 200);

        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted(question));
        assertThat(status.getString("result.reasoning")).isEqualTo(uninterruptedReasoning());
        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(answerText(valid)).as("what a reader keeps").isEqualTo(uninterrupted(question));
        assertThat(valid).anyMatch(e -> "resume".equals(e.get("event")));
        assertThat(valid).as("web searches shown as they happen")
                .anyMatch(e -> "web search: searching".equals(e.get("message")));
        assertThat(sequenceNumbers(valid)).as("each upstream event at most once, in order").isSorted()
                .doesNotHaveDuplicates();
        assertThat(status.getInt("tokens.takeovers.reattach")).isEqualTo(1);
        long saved = status.getLong("tokens.saved.completionTokens");
        assertThat(status.getLong("tokens.result.completionTokens")).isEqualTo(OpenAiResumeProfile.ANSWER_WORDS - saved);
        assertThat(status.getLong("result.usage.completionTokens")).isEqualTo(OpenAiResumeProfile.ANSWER_WORDS);
        assertThat(simulator.statuses(jobId)).as("one response, not cancelled by the zombie").containsExactly("completed");
    }

    @Test
    void aResponseThatCannotBeStreamedAgainIsPolledAndItsRestPublished() {
        String question = "too old to stream again [sim:old]";
        String jobId = takenOverAt(question, 200);

        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted(question));
        assertThat(answerText(validHistory(jobId))).isEqualTo(uninterrupted(question));
        assertThat(status.getInt("tokens.takeovers.reattach")).isEqualTo(1);
        assertThat(simulator.statuses(jobId)).containsExactly("completed");
    }

    @Test
    void aResponseThatIsGoneFailedCancelledOrStuckIsGivenUpAndTheAnswerContinuedInANewOne() {
        // The four cases run side by side, one job each, taken over together.
        List<String> directives = List.of("[sim:gone]", "[sim:failed]", "[sim:cancelled]", "[sim:queued]");
        Worker workerA = startResearchWorker("worker-A");
        Map<String, String> jobs = new LinkedHashMap<>();
        directives.forEach(directive -> jobs.put(directive, startJob("given up " + directive)));
        jobs.values().forEach(jobId -> awaitTokens(jobId, 200));
        Map<String, Long> before = new HashMap<>();
        jobs.values().forEach(jobId -> before.put(jobId, status(jobId).getLong("fencingToken")));
        freeze(workerA);
        worker(research, "worker-B").start();
        jobs.values().forEach(jobId -> await("job " + jobId + " is taken over").atMost(TIMEOUT)
                .until(() -> status(jobId).getLong("fencingToken"), token -> token > before.get(jobId)));
        simulatorAtFullSpeed();
        thaw(workerA);
        jobs.values().forEach(jobId -> awaitCompleted(jobId));

        for (String directive : directives) {
            String question = "given up " + directive;
            String jobId = jobs.get(directive);
            JsonPath status = status(jobId);
            assertThat(status.getString("result.text")).as(directive).isEqualTo(uninterrupted(question));
            assertThat(answerText(validHistory(jobId))).as(directive).isEqualTo(uninterrupted(question));
            assertThat(status.getInt("tokens.takeovers.continue")).as(directive).isEqualTo(1);
            assertThat(simulator.statuses(jobId)).as(directive).hasSize(2).last().isEqualTo("completed");
        }
    }

    @Test
    void aSecondTakeoverReattachesToTheResponseThatContinuedTheAnswer() {
        String question = "continued, then re-attached [sim:gone]";
        Worker workerA = startResearchWorker("worker-A");
        Worker workerB = worker(research, "worker-B");
        String jobId = startJob(question);
        awaitTokens(jobId, 200);
        takeOver(workerA, workerB, jobId);
        long committedByA = await("B publishes").atMost(TIMEOUT)
                .until(() -> status(jobId).getObject("progress.completionTokens", Long.class), tokens -> tokens != null);
        awaitTokens(jobId, committedByA + 200);

        takeOver(workerB, worker(research, "worker-C"), jobId);
        simulatorAtFullSpeed();
        awaitCompleted(jobId);

        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted(question));
        assertThat(answerText(validHistory(jobId))).isEqualTo(uninterrupted(question));
        assertThat(status.getInt("tokens.takeovers.continue")).isEqualTo(1);
        assertThat(status.getInt("tokens.takeovers.reattach")).isEqualTo(1);
        assertThat(simulator.statuses(jobId)).as("A's response gone; B's continuation re-attached to, not started again")
                .containsExactly("gone", "completed");
    }

    @Test
    void aServerWithoutSequenceNumbersNorRetrievalGetsTheWholeAnswer() {
        simulatorAtFullSpeed(); // no takeover: nothing needs the answer's pace
        String question = "answered as llama.cpp answers [sim:llama-cpp]";
        startResearchWorker("worker-llama");
        String jobId = startJob(question);
        awaitCompleted(jobId);

        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted(question));
        assertThat(status.getString("result.finishReason")).isEqualTo("stop");
        assertThat(status.getLong("result.usage.completionTokens")).isEqualTo(OpenAiResumeProfile.ANSWER_WORDS);
        assertThat(answerText(validHistory(jobId))).isEqualTo(uninterrupted(question));
        assertThat(simulator.statuses(jobId)).containsExactly("completed");
    }

    @Test
    void aTakeoverOfAnAnswerWithoutSequenceNumbersContinuesItInsteadOfReattaching() {
        String question = "continued, not re-attached [sim:llama-cpp]";
        String jobId = takenOverAt(question, 200);

        JsonPath status = status(jobId);
        assertThat(status.getString("result.text")).isEqualTo(uninterrupted(question));
        assertThat(status.getString("result.finishReason")).isEqualTo("stop");
        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(answerText(valid)).as("what a reader keeps").isEqualTo(uninterrupted(question));
        assertThat(valid).anyMatch(e -> "resume".equals(e.get("event")));
        assertThat(status.getInt("tokens.takeovers.continue")).isEqualTo(1);
        assertThat(status.getMap("tokens.takeovers")).doesNotContainKey("reattach");
        assertThat(simulator.statuses(jobId)).as("the first response, then the one that continued it").hasSize(2)
                .last().isEqualTo("completed");
    }

    @Test
    void aResponseStreamThatEndsWithoutItsTerminalEventFailsTheAttemptAndNeverCompletesTheJob() {
        startResearchWorker("worker-cut-short");
        Map<String, String> jobs = new LinkedHashMap<>();
        for (String question : List.of("cut short [sim:unfinished]", "cut short [sim:llama-cpp] [sim:unfinished]")) {
            jobs.put(question, startJob(question));
        }

        jobs.forEach((question, jobId) -> {
            await(question + " fails").atMost(TIMEOUT).until(() -> "failed".equals(status(jobId).getString("state")));
            JsonPath status = status(jobId);
            assertThat(status.getInt("attemptsMade")).as(question).isEqualTo(status.getInt("attempts"));
            assertThat(status.getString("failedReason")).as(question).contains("without its terminal event "
                    + "(`response.completed`, `response.incomplete`");
            List<Map<String, Object>> history = given().get("/research/history/" + jobId).jsonPath().getList("$");
            assertThat(history).as(question).noneMatch(e -> "completed".equals(e.get("event")));
        });
    }

    @Test
    void theSimulatorEndsAResponseCutByMaxOutputTokensAsIncompleteMidSentence() {
        List<ResponseEvent> events = responses.create(responses.request("cut by max_output_tokens")
                .put("max_output_tokens", 40), "cut-" + UUID.randomUUID())
                .onItem().transformToMulti(stream -> stream).collect().asList().await().atMost(TIMEOUT);

        ResponseEvent last = events.get(events.size() - 1);
        assertThat(last.type()).isEqualTo("response.incomplete");
        assertThat(last.data().path("response").path("incomplete_details").path("reason").asText())
                .isEqualTo("max_output_tokens");
        assertThat(ResponseChunks.of(last).finishReason()).isEqualTo("length");
        String text = events.stream().filter(e -> e.type().equals("response.output_text.delta"))
                .map(e -> e.data().path("delta").asText()).collect(Collectors.joining());
        assertThat(text.split(" ")).hasSize(40);
        assertThat(text).as("cut where it stood").doesNotEndWith(".");
    }

    @Test
    void theLogSaysOncePerModelWhichWayATakeoverGoesOn() {
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                lines.add(new SimpleFormatter().formatMessage(record));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(ResponsesResearch.class.getName());
        AtomicReference<String> model = new AtomicReference<>("tiny-llama");
        ReattachLog log = new ReattachLog(model::get, () -> URI.create("http://llama:8080/v1/responses"));

        logger.addHandler(handler);
        try {
            log.streamed(false);
            log.streamed(false);
            log.streamed(false);
            model.set("gpt-sim");
            log.streamed(true);
            log.streamed(true);
            log.notRetrieved(405);
            log.notRetrieved(405);
        } finally {
            logger.removeHandler(handler);
        }

        assertThat(lines).as("this log's lines (jobs of other tests may log too)")
                .filteredOn(line -> line.startsWith("model tiny-llama ") || line.startsWith("model gpt-sim "))
                .containsExactly(
                "model tiny-llama at http://llama:8080/v1/responses: responses stream without sequence numbers: a "
                        + "takeover continues the answer (no re-attach)",
                "model gpt-sim at http://llama:8080/v1/responses: responses stream with sequence numbers: a takeover "
                        + "re-attaches to the response after the last committed event (or continues the answer when "
                        + "the server no longer has it)",
                "model gpt-sim at http://llama:8080/v1/responses: GET /v1/responses/{id} answered 405 (the server "
                        + "retrieves no response, or no longer has this one): a takeover continues the answer (no "
                        + "re-attach)");
    }

    @Test
    void abortingTheJobCancelsItsResponseUpstream() {
        startResearchWorker("worker-abort");
        String jobId = startJob("aborted while the response runs");
        awaitTokens(jobId, 50);

        given().post("/research/abort/" + jobId).then().statusCode(200);

        await("the response is cancelled upstream").atMost(TIMEOUT)
                .until(() -> simulator.statuses(jobId), statuses -> statuses.equals(List.of("cancelled")));
    }

    /** @return the id of a job on {@code question} taken over once it has {@code tokens} tokens, completed */
    private String takenOverAt(String question, long tokens) {
        Worker workerA = startResearchWorker("worker-A");
        String jobId = startJob(question);
        awaitTokens(jobId, tokens);
        takeOver(workerA, worker(research, "worker-B"), jobId);
        simulatorAtFullSpeed();
        awaitCompleted(jobId);
        workers.stopAll();
        return jobId;
    }

    private static String uninterruptedReasoning() {
        return SimulatorAnswers.uninterruptedReasoning(OpenAiResumeProfile.ANSWER_WORDS);
    }

    private static List<Long> sequenceNumbers(List<Map<String, Object>> events) {
        return events.stream().filter(e -> e.get("sequenceNumber") != null)
                .map(e -> ((Number) e.get("sequenceNumber")).longValue()).toList();
    }
}
