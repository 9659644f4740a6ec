package dev.fencedqueue.tracing;

import static dev.fencedqueue.testing.Timeouts.BROWSER_STEP;
import static dev.fencedqueue.testing.Timeouts.FAN_OUT_END;
import static dev.fencedqueue.testing.Timeouts.JOB_END;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import dev.fencedqueue.llm.LlmPrices;
import dev.fencedqueue.research.OpenAiResumeProfile;
import dev.fencedqueue.testing.ChromiumExtension;
import dev.fencedqueue.testing.FanOuts;
import dev.fencedqueue.testing.RedisSinkAndTracesProfile;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.semconv.incubating.GenAiIncubatingAttributes;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * One trace per job: a research job taken over in the middle of its answer (OpenAI's protocol, continued) is one
 * trace, under the W3C {@code traceparent} of the request that added it: the {@code send} span of the add, two attempt
 * spans with their fencing tokens (the zombie's with its refused writes as events, ending {@code zombie}; the new run's
 * ending {@code result}, resumed), under each the LLM call's GenAI span with the tokens the job's status counts for that
 * attempt and what they cost at the prices ({@code fq.llm.cost}; the LLM server's own span under it: the call carried
 * its {@code traceparent}), and the SSE reader's
 * span with the events it was sent. A bulk job's chunks are child spans of its attempt with the cursor range each
 * committed, the items it applied and the rows it wrote (the Redis sink). Read from the SDK's in-memory exporter. And
 * the operator console links a job's detail to its trace in the trace UI ({@code fq.tracing.ui-url}), in a real headless
 * Chromium.
 */
@QuarkusTest
@TestProfile(RedisSinkAndTracesProfile.class)
@RuntimeProfile(OpenAiResumeProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class TracingTest extends ResearchTestSupport {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";
    private static final String QUERY = "which traces survive a takeover";

    @RegisterExtension
    static final ChromiumExtension CHROMIUM = new ChromiumExtension();

    @Inject
    InMemorySpanExporter exported;

    @Inject
    @Any
    Instance<JobProcessor> processors;

    @Test
    void oneTraceShowsTheJobFromItsRequestToItsLastSseEventWithTheTakeoverAsASecondAttempt() throws Exception {
        settings.adjust("fq.llm.price.input", "3");
        settings.adjust("fq.llm.price.output", "15");
        Worker workerA = startResearchWorker("worker-A");
        String jobId = given().header("traceparent", "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01")
                .contentType(ContentType.JSON).body(Map.of("query", QUERY)).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        long tokenOfA;
        List<SseClient.Message> read;
        try (SseClient reader = SseClient.open(base + "research/stream/" + jobId)) {
            await("the answer is under way").atMost(TIMEOUT)
                    .until(() -> status(jobId).getObject("progress.completionTokens", Long.class),
                            tokens -> tokens != null && tokens >= 100);
            tokenOfA = status(jobId).getLong("fencingToken");
            simulatorAtFullSpeed();
            takeOver(workerA, worker(research, "worker-B"), jobId);
            reader.ended().get(60, TimeUnit.SECONDS);
            read = reader.events();
        }
        JsonPath status = status(jobId);
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getString("traceId")).as("the job names its trace").isEqualTo(TRACE_ID);
        long tokenOfB = status.getLong("fencingToken");

        List<SpanData> trace = await("the reader's span is exported").atMost(TIMEOUT).until(this::trace,
                spans -> spans.stream().anyMatch(span -> span.getName().startsWith("receive ")));

        SpanData send = single(trace, "send deep-research", SpanKind.PRODUCER);
        assertThat(send.getAttributes().get(MessagingIncubatingAttributes.MESSAGING_MESSAGE_ID)).isEqualTo(jobId);
        assertThat(send.getAttributes().get(MessagingIncubatingAttributes.MESSAGING_SYSTEM)).isEqualTo("fenced-queue");
        assertThat(send.getAttributes().get(MessagingIncubatingAttributes.MESSAGING_OPERATION_TYPE)).isEqualTo("send");

        List<SpanData> attempts = trace.stream().filter(span -> span.getName().equals("process deep-research")).toList();
        assertThat(attempts).as("two attempts: the zombie's and the takeover's").hasSize(2)
                .allSatisfy(attempt -> {
                    assertThat(attempt.getKind()).isEqualTo(SpanKind.CONSUMER);
                    assertThat(attempt.getParentSpanId()).as("a child of the add").isEqualTo(send.getSpanId());
                    assertThat(attempt.getAttributes().get(MessagingIncubatingAttributes.MESSAGING_MESSAGE_ID))
                            .isEqualTo(jobId);
                    assertThat(attempt.getAttributes().get(MessagingIncubatingAttributes.MESSAGING_OPERATION_TYPE))
                            .isEqualTo("process");
                });
        SpanData zombie = attempt(attempts, tokenOfA);
        SpanData takeover = attempt(attempts, tokenOfB);
        assertThat(zombie.getAttributes().get(TraceAttributes.WORKER_ID)).isEqualTo("worker-A");
        assertThat(zombie.getAttributes().get(TraceAttributes.OUTCOME)).isEqualTo("zombie");
        assertThat(zombie.getAttributes().get(TraceAttributes.REASON)).contains("newer run");
        assertThat(zombie.getEvents()).as("the zombie's refused writes")
                .anySatisfy(event -> assertThat(event.getName()).isEqualTo(TraceAttributes.WRITE_REFUSED));
        assertThat(takeover.getAttributes().get(TraceAttributes.WORKER_ID)).isEqualTo("worker-B");
        assertThat(takeover.getAttributes().get(TraceAttributes.OUTCOME)).isEqualTo("result");
        assertThat(takeover.getAttributes().get(TraceAttributes.ATTEMPT)).isEqualTo(2L);
        assertThat(takeover.getAttributes().get(TraceAttributes.RESUMED)).isTrue();
        assertThat(takeover.getAttributes().get(TraceAttributes.TAKEOVER)).isEqualTo("continue");
        assertThat(takeover.getEvents()).noneMatch(event -> event.getName().equals(TraceAttributes.WRITE_REFUSED));

        SpanData callOfA = llmCall(trace, zombie);
        SpanData callOfB = llmCall(trace, takeover);
        assertThat(callOfA.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_USAGE_OUTPUT_TOKENS))
                .as("the zombie's tokens, as the status counts them")
                .isEqualTo(status.getLong("tokens.zombie.completionTokens"));
        assertThat(callOfA.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_USAGE_INPUT_TOKENS))
                .isEqualTo(status.getLong("tokens.zombie.promptTokens"));
        assertThat(callOfB.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_USAGE_OUTPUT_TOKENS))
                .as("the takeover's tokens, as the status counts them")
                .isEqualTo(status.getLong("tokens.result.completionTokens"));
        assertThat(callOfB.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_USAGE_INPUT_TOKENS))
                .isEqualTo(status.getLong("tokens.result.promptTokens"));
        assertThat(callOfB.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_RESPONSE_FINISH_REASONS))
                .containsExactly("stop");
        assertThat(callOfA.getAttributes().get(TraceAttributes.LLM_COST)).as("the zombie's cost, as the status's")
                .isEqualTo(LlmPrices.units(3 * status.getLong("tokens.zombie.promptTokens")
                        + 15 * status.getLong("tokens.zombie.completionTokens")));
        assertThat(callOfB.getAttributes().get(TraceAttributes.LLM_COST)).as("the takeover's cost, as the status's")
                .isEqualTo(LlmPrices.units(3 * status.getLong("tokens.result.promptTokens")
                        + 15 * status.getLong("tokens.result.completionTokens")));
        await("the LLM server's span joins the trace under the call that made it").atMost(TIMEOUT)
                .until(() -> trace().stream().anyMatch(span -> span.getKind() == SpanKind.SERVER
                        && span.getParentSpanId().equals(callOfB.getSpanId())));

        SpanData reader = trace.stream().filter(span -> span.getName().equals("receive deep-research")).findFirst()
                .orElseThrow();
        assertThat(reader.getParentSpanId()).as("the reader follows the job's trace").isEqualTo(send.getSpanId());
        assertThat(reader.getAttributes().get(TraceAttributes.SSE_EVENTS)).isEqualTo((long) read.size());
        assertThat(reader.getAttributes().get(TraceAttributes.SSE_RESUMES)).isEqualTo(1L);
        assertThat(reader.getAttributes().get(TraceAttributes.SSE_RESETS)).isZero();

        assertThat(trace).as("neither the question nor the answer is put in a span").allSatisfy(span -> span
                .getAttributes().forEach((key, value) -> assertThat(String.valueOf(value))
                        .doesNotContain(QUERY).doesNotContain(status.getString("result.text").substring(0, 40))));
    }

    @Test
    void aDeepResearchJobsPlanCallCarriesItsTokensAndTheirCostAsItsReportsDoes() {
        settings.adjust("fq.llm.price.input", "3");
        settings.adjust("fq.llm.price.output", "15");
        simulatorAtFullSpeed();
        startResearchWorker("worker-deep");
        String traceId = "6c1a2b3c4d5e6f708192a3b4c5d6e7f8";
        String jobId = given().header("traceparent", "00-" + traceId + "-" + CLIENT_SPAN + "-01")
                .contentType(ContentType.JSON).body(Map.of("query", "heat pumps", "mode", "deep"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        await("the deep research job completes").atMost(JOB_END).until(() -> "completed".equals(status(jobId)
                .getString("state")));
        JsonPath status = status(jobId);

        List<SpanData> calls = await("the parent's two calls are exported: the plan, then the report").atMost(TIMEOUT)
                .until(() -> {
                    List<SpanData> trace = exported.getFinishedSpanItems().stream()
                            .filter(span -> span.getTraceId().equals(traceId)).toList();
                    List<String> attempts = trace.stream().filter(span -> span.getName().equals("process deep-research")
                            && jobId.equals(span.getAttributes().get(MessagingIncubatingAttributes.MESSAGING_MESSAGE_ID)))
                            .map(SpanData::getSpanId).toList();
                    return trace.stream().filter(span -> span.getKind() == SpanKind.CLIENT
                            && attempts.contains(span.getParentSpanId())).toList();
                }, spans -> spans.size() == 2);
        assertThat(calls).as("each call's tokens and their cost, the plan's included").allSatisfy(call -> {
            Long input = call.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_USAGE_INPUT_TOKENS);
            Long output = call.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_USAGE_OUTPUT_TOKENS);
            assertThat(input).isPositive();
            assertThat(output).isPositive();
            assertThat(call.getAttributes().get(TraceAttributes.LLM_COST)).isEqualTo(LlmPrices.units(3 * input
                    + 15 * output));
        });
        assertThat(calls.stream().mapToLong(call -> call.getAttributes()
                .get(GenAiIncubatingAttributes.GEN_AI_USAGE_INPUT_TOKENS)).sum())
                .as("the calls' prompt tokens, as the status counts the plan's and the report's")
                .isEqualTo(status.getLong("tokens.result.promptTokens"));
        assertThat(calls.stream().mapToLong(call -> call.getAttributes()
                .get(GenAiIncubatingAttributes.GEN_AI_USAGE_OUTPUT_TOKENS)).sum())
                .isEqualTo(status.getLong("tokens.result.completionTokens"));
    }

    @Test
    void theOperatorConsoleLinksAJobToItsTraceInTheTraceUi() {
        String traceId = "5b8efff798038103d269b633813fc60c";
        String jobId = given().header("traceparent", "00-" + traceId + "-eee19b7ec3c1b174-01")
                .contentType(ContentType.JSON).body(Map.of("query", "waits for a worker")).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        String traceUrl = RedisSinkAndTracesProfile.UI_URL.replace("{traceId}", traceId);
        given().auth().preemptive().basic("admin", "admin").get("/admin/queues/deep-research/jobs/" + jobId)
                .then().statusCode(200).body("traceId", equalTo(traceId)).body("traceUrl", equalTo(traceUrl));

        ChromeDriver browser = CHROMIUM.driver();
        browser.get(base.toString().replace("://", "://admin:admin@") + "admin/");
        await("the console is loaded").atMost(BROWSER_STEP).until(() -> browser.getCurrentUrl().contains(
                "/admin/console/#/"));
        browser.get(base + "admin/console/#/queues/deep-research/jobs?state=waiting");
        await("the job is listed").atMost(BROWSER_STEP).until(() -> Boolean.TRUE.equals(browser.executeScript(
                "return document.querySelector(`#jobs tr[data-job-id='${arguments[0]}']`) !== null", jobId)));
        browser.executeScript("const e = document.querySelector(arguments[0]); setTimeout(() => e.click(), 0)",
                "#jobs tr[data-job-id='" + jobId + "'] .job-link");
        await("its detail links to its trace").atMost(BROWSER_STEP).until(() -> String.valueOf(browser.executeScript(
                "const a = document.querySelector('#detail-trace a'); return a ? a.href + ' ' + a.textContent : ''")),
                link -> link.equals(traceUrl + " " + traceId));
        given().post("/research/abort/" + jobId).then().statusCode(200);
    }

    @Test
    void eachChunkOfAFanOutIsAChildOfItsAttemptWithItsCursorRangeItemsAndRows() {
        String channel = "traced-" + System.nanoTime();
        List<String> ids = IntStream.range(0, 25).mapToObj(n -> String.format("u-%02d", n)).toList();
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", ids))
                .post("/notifications/channels/" + channel + "/subscribers").then().statusCode(200);
        worker(processors.stream().filter(processor -> processor.queue().equals("notifications")).findFirst()
                .orElseThrow(), "w-bulk").start();
        String jobId = FanOuts.start(channel, 10, null, Map.of());
        await("the fan-out completes").atMost(FAN_OUT_END).until(() -> "completed".equals(given()
                .get("/notifications/jobs/" + jobId).then().extract().path("state")));
        String traceId = given().get("/notifications/jobs/" + jobId).then().extract().path("traceId");
        assertThat(traceId).as("the job names its trace").isNotNull();

        List<SpanData> trace = await("the attempt's span is exported").atMost(TIMEOUT)
                .until(() -> exported.getFinishedSpanItems().stream().filter(span -> span.getTraceId().equals(traceId))
                        .toList(), spans -> spans.stream().anyMatch(span -> span.getName().equals("process notifications")));
        SpanData attempt = trace.stream().filter(span -> span.getName().equals("process notifications")).findFirst()
                .orElseThrow();
        assertThat(attempt.getAttributes().get(TraceAttributes.OUTCOME)).isEqualTo("result");
        List<SpanData> chunks = trace.stream().filter(span -> span.getName().equals("chunk notifications"))
                .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos)).toList();
        assertThat(chunks).as("three chunks of 10, 10 and 5, then the look that found none left").hasSize(4)
                .allSatisfy(chunk -> {
                    assertThat(chunk.getKind()).isEqualTo(SpanKind.INTERNAL);
                    assertThat(chunk.getParentSpanId()).isEqualTo(attempt.getSpanId());
                });
        assertThat(chunks).extracting(chunk -> chunk.getAttributes().get(TraceAttributes.CHUNK_OUTCOME))
                .containsExactly("committed", "committed", "committed", "done");
        assertThat(chunks).extracting(chunk -> chunk.getAttributes().get(TraceAttributes.CHUNK_ITEMS))
                .containsExactly(10L, 10L, 5L, 0L);
        assertThat(chunks).extracting(chunk -> chunk.getAttributes().get(TraceAttributes.CHUNK_ROWS))
                .as("an inbox entry and an outbox entry per subscriber").containsExactly(20L, 20L, 10L, 0L);
        assertThat(chunks.get(0).getAttributes().get(TraceAttributes.CURSOR_FROM)).isEmpty();
        for (int i = 1; i < chunks.size(); i++) {
            assertThat(chunks.get(i).getAttributes().get(TraceAttributes.CURSOR_FROM)).as("chunk %d starts where %d ended",
                    i, i - 1).isEqualTo(chunks.get(i - 1).getAttributes().get(TraceAttributes.CURSOR_TO));
        }
        assertThat(chunks.get(2).getAttributes().get(TraceAttributes.CURSOR_TO)).isEqualTo("u-24");
    }

    /** @return the finished spans of the test's trace */
    private List<SpanData> trace() {
        return exported.getFinishedSpanItems().stream().filter(span -> span.getTraceId().equals(TRACE_ID)).toList();
    }

    private static SpanData single(List<SpanData> trace, String name, SpanKind kind) {
        List<SpanData> named = trace.stream().filter(span -> span.getName().equals(name)).toList();
        assertThat(named).as(name).hasSize(1);
        assertThat(named.get(0).getKind()).isEqualTo(kind);
        return named.get(0);
    }

    private static SpanData attempt(List<SpanData> attempts, long fencingToken) {
        return attempts.stream().filter(span -> Long.valueOf(fencingToken)
                .equals(span.getAttributes().get(TraceAttributes.FENCING_TOKEN))).findFirst()
                .orElseThrow(() -> new AssertionError("no attempt span with fencing token " + fencingToken));
    }

    /** @return the GenAI span of the attempt's LLM call: a CLIENT child of it, with the model it asked */
    private static SpanData llmCall(List<SpanData> trace, SpanData attempt) {
        List<SpanData> calls = trace.stream().filter(span -> attempt.getSpanId().equals(span.getParentSpanId())
                && span.getKind() == SpanKind.CLIENT).toList();
        assertThat(calls).as("the LLM calls of the attempt with token %s",
                attempt.getAttributes().get(TraceAttributes.FENCING_TOKEN)).hasSize(1);
        SpanData call = calls.get(0);
        assertThat(call.getName()).isEqualTo("chat fenced-queue-simulator");
        assertThat(call.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_OPERATION_NAME)).isEqualTo("chat");
        assertThat(call.getAttributes().get(GenAiIncubatingAttributes.GEN_AI_REQUEST_MODEL))
                .isEqualTo("fenced-queue-simulator");
        assertThat(call.getAttributes().get(AttributeKey.stringKey("server.address"))).isEqualTo("127.0.0.1");
        return call;
    }
}
