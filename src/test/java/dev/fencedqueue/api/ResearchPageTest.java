package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.BROWSER_STEP;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ChromiumExtension;
import dev.fencedqueue.testing.CuttableProxy;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SimulatorStreams;
import dev.fencedqueue.testing.Takeover;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The research page ({@code index.html}) in a real headless Chromium: it starts a job, follows it with the
 * browser's own {@code EventSource}, and shows exactly one coherent run, also when a second worker takes the
 * job over from a frozen one; its activity shows one line per phase, each line standing for the events of its phase
 * ({@code data-ids}). The profile's simulator streams 30 steps, one every 200 ms.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ResearchPageTest extends ResearchTestSupport {

    @RegisterExtension
    static final ChromiumExtension CHROMIUM = new ChromiumExtension();

    @Inject
    Vertx vertx;

    @Test
    void pageStartsAJobAndShowsItsRunToCompletion() {
        simulatorAtFullSpeed(); // the run's lines are checked once it completed
        startResearchWorker("worker-page");
        browser().get(base.toString());
        browser().findElement(By.id("query")).sendKeys("fencing tokens in practice");
        browser().findElement(By.id("start")).click();

        awaitOutcome("completed");
        String jobId = text("job-id");
        assertThat(browser().findElement(By.id("tenant-row")).isDisplayed()).as("no tenant asked for").isFalse();
        assertThat(browser().getCurrentUrl()).as("a reload follows the same job").endsWith("?jobId=" + jobId);
        assertThat(text("job-question")).isEqualTo("fencing tokens in practice");
        assertThat(shownIds()).as("every event of the run, once, in order").containsExactlyElementsOf(ids(
                validHistory(jobId)));
        List<Map<String, Object>> lines = lines();
        assertThat(lines).extracting(line -> line.get("text")).first().isEqualTo("Started");
        assertThat(lines).extracting(line -> line.get("event")).last().isEqualTo("completed");
        assertThat(lines).as("30 progress events, one line per phase of the research: " + lines).hasSizeBetween(3, 7);
        long run = status(jobId).getLong("fencingToken");
        assertThat(run).isPositive();
        assertThat(lines).extracting(line -> line.get("fencingToken")).containsOnly(run);
        assertThat(text("answer-text")).contains("fencing tokens in practice");
        assertThat(text("progress-label")).isEqualTo("Finished");
        assertThat(browser().findElement(By.id("outcome")).isDisplayed()).as("finished is said once").isFalse();
        assertThat(value("percent")).isEqualTo("100");
        assertThat(visibleText()).doesNotContain(jobId).doesNotContain(String.valueOf(run))
                .doesNotContain("worker-page").doesNotContainPattern("(?i)fencing token \\d");
        assertThat(browser().findElement(By.id("notice")).isDisplayed()).as("no takeover notice").isFalse();
    }

    @Test
    void pageDropsTheOldRunAndShowsOnlyTheNewOneAfterAWorkerTookTheJobOver() {
        Worker workerA = startResearchWorker("worker-A");
        Worker workerB = worker(research, "worker-B");
        String jobId = startJob("takeover in the browser");
        browser().get(base + "?jobId=" + jobId);
        await().atMost(BROWSER_STEP).until(() -> shownIds().size() >= 3);
        long runOfA = status(jobId).getLong("fencingToken");
        assertThat(lines()).extracting(line -> line.get("fencingToken")).containsOnly(runOfA);

        freeze(workerA);
        workerB.start();
        awaitOutcome("completed");

        long runOfB = status(jobId).getLong("fencingToken");
        assertThat(runOfB).as("a newer run").isGreaterThan(runOfA);
        List<Map<String, Object>> lines = lines();
        assertThat(lines).as("only the new run is shown").extracting(line -> line.get("fencingToken"))
                .containsOnly(runOfB);
        assertThat(lines.get(0)).containsEntry("event", "started").containsEntry("text", "Started");
        assertThat(lines).filteredOn(line -> "completed".equals(line.get("event"))).hasSize(1);
        assertThat(lines).extracting(line -> line.get("event")).last().isEqualTo("completed");
        assertThat(shownIds()).containsExactlyElementsOf(ids(validHistory(jobId)));
        assertThat(text("notice")).as("one plain line").isEqualTo("The answer was interrupted and started over.");
        assertThat(visibleText()).doesNotContain(String.valueOf(runOfA)).doesNotContain(String.valueOf(runOfB))
                .doesNotContain("worker-A").doesNotContain("worker-B");
        browser().findElement(By.cssSelector("#details summary")).click();
        assertThat(visibleText()).as("the details name the runs").contains("fencing token " + runOfB)
                .contains("took over from fencing token " + runOfA).contains("worker-B");
    }

    /**
     * A run that continues the answer (a {@code resume}): the page keeps the text it shows, never blanks, and goes on
     * with the new run's text, with a short note; a {@code MutationObserver} records every text the answer showed.
     */
    @Test
    void pageKeepsTheAnswerWhenANewerRunResumesIt() {
        Takeover takeover = heldPair();
        String jobId = startJob("resume in the browser");
        JobContext first = takeover.awaitAttemptOfA().context();
        delta(first, "The answer ");
        delta(first, "begins");
        browser().get(base + "?jobId=" + jobId);
        await().atMost(BROWSER_STEP).until(() -> text("answer-text").contains("The answer begins"));
        browser().executeScript("""
                window.answerTexts = [];
                new MutationObserver(() => window.answerTexts.push(document.getElementById('answer-text').textContent))
                    .observe(document.getElementById('answer-text'), { childList: true, subtree: true, characterData: true });""");

        ProbeProcessor.Attempt onB = takeover.takeOver();
        JobContext second = onB.context();
        second.resume().await().atMost(TIMEOUT);
        delta(second, " and goes on.");
        onB.complete("done");
        awaitOutcome("completed");

        assertThat(text("answer-text")).contains("The answer begins and goes on.");
        @SuppressWarnings("unchecked")
        List<String> texts = (List<String>) browser().executeScript("return window.answerTexts");
        assertThat(texts).as("the answer never blanked").allMatch(t -> t.contains("The answer begins"));
        assertThat(browser().findElement(By.id("notice")).isDisplayed()).as("said once, in the activity").isFalse();
        List<Map<String, Object>> valid = validHistory(jobId);
        assertThat(valid).extracting(e -> e.get("event")).containsSubsequence("progress", "resume", "progress",
                "completed");
        assertThat(shownIds()).containsExactlyElementsOf(ids(valid));
        assertThat(lines()).extracting(line -> line.get("text"))
                .contains("The answer was interrupted and went on where it stopped.");
        assertThat(visibleText()).doesNotContain("worker-B").doesNotContainIgnoringCase("fencing token");
    }

    /**
     * A failed attempt's retry that continues the answer ({@code resume} with {@code reason: retry}) is no takeover:
     * the page keeps the answer and shows a quiet line, no notice.
     */
    @Test
    void pageSaysNothingOfATakeoverWhenARetryContinuesTheAnswer() {
        ProbeProcessor processor = ProbeProcessor.held(research.queue());
        worker(processor, "worker-retry").start();
        String jobId = startJob("retry in the browser");
        await().atMost(TIMEOUT).until(() -> processor.started() > 0);
        delta(processor.attempt(0).context(), "The answer begins");
        browser().get(base + "?jobId=" + jobId);
        await().atMost(BROWSER_STEP).until(() -> text("answer-text").contains("The answer begins"));

        processor.attempt(0).fail(new IllegalStateException("the upstream answered 502"));
        await().atMost(TIMEOUT).until(() -> processor.started() > 1);
        JobContext retry = processor.attempt(1).context();
        retry.resume().await().atMost(TIMEOUT);
        delta(retry, " and goes on.");
        processor.attempt(1).complete("done");
        awaitOutcome("completed");

        assertThat(text("answer-text")).contains("The answer begins and goes on.");
        assertThat(browser().findElement(By.id("notice")).isDisplayed()).as("no takeover notice").isFalse();
        assertThat(lines()).filteredOn(line -> "resume".equals(line.get("event"))).singleElement()
                .satisfies(line -> assertThat(line).containsEntry("state", "quiet")
                        .containsEntry("text", "An error interrupted the answer; it went on where it stopped."));
        assertThat(text("runs")).as("the details name the attempt").contains("attempt 2");
        assertThat(visibleText()).doesNotContainIgnoringCase("attempt");
        assertThat(shownIds()).containsExactlyElementsOf(ids(validHistory(jobId)));
    }

    /**
     * An answer of the OpenAI protocol with {@code maxTokens} in its progress: the bar counts the tokens against it as
     * they arrive, and an answer cut there ({@code finishReason: length}) says so instead of "complete".
     */
    @Test
    void pageMeasuresTheAnswerAgainstMaxTokensAndSaysWhenItWasCutThere() {
        ProbeProcessor processor = ProbeProcessor.held(research.queue());
        worker(processor, "worker-length").start();
        String jobId = startJob("cut at the token limit");
        await().atMost(TIMEOUT).until(() -> processor.started() > 0);
        JobContext context = processor.attempt(0).context();
        browser().get(base + "?jobId=" + jobId);
        writing(context, "One two three four", 10);
        await().atMost(BROWSER_STEP).until(() -> "25".equals(value("percent")));
        assertThat(text("progress-label")).isEqualTo("Writing the answer");
        assertThat(text("progress-meta")).startsWith("10 of 40 tokens");
        writing(context, " five six seven eight", 20);
        await("the bar moves").atMost(BROWSER_STEP).until(() -> "50".equals(value("percent")));
        assertThat(text("progress-meta")).startsWith("20 of 40 tokens");
        processor.attempt(0).complete(Map.of("text", "One two three four five six seven eight", "finishReason",
                "length", "truncated", true));
        awaitOutcome("completed");

        assertThat(text("outcome-text")).contains("cut at the token limit").doesNotContain("complete");
        assertThat(text("progress-label")).isEqualTo("Finished, cut short");
        assertThat(lines()).as("one line for the whole answer").extracting(line -> line.get("phase"))
                .containsExactly("started", "writing");
    }

    /** Publishes answer text as ChatResearch does with {@code fq.llm.request.max-tokens} 40. */
    private static void writing(JobContext context, String text, int completionTokens) {
        context.progress(completionTokens * 100 / 40, "answering: " + completionTokens + " tokens",
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("delta", text)
                        .put("completionTokens", completionTokens).put("phase", "writing").put("maxTokens", 40))
                .await().atMost(TIMEOUT);
    }


    /**
     * A connection cut mid-run (a proxy's idle timeout, a network blip): the browser reconnects by itself with
     * {@code Last-Event-ID}, and the page ends up with every event of the run exactly once, in order.
     */
    @Test
    void pageResumesAfterACutConnectionWithoutRepeatingOrLosingEvents() {
        startResearchWorker("worker-cut");
        String jobId = startJob("cut me off");
        try (CuttableProxy proxy = CuttableProxy.start(vertx, base.getPort())) {
            browser().get("http://127.0.0.1:" + proxy.port() + "/?jobId=" + jobId);
            await().atMost(BROWSER_STEP).until(() -> shownIds().size() >= 4);
            int acceptedBeforeCut = proxy.accepted();

            proxy.cutAll();

            awaitOutcome("completed");
            assertThat(proxy.accepted()).as("the browser reconnected through the proxy").isGreaterThan(acceptedBeforeCut);
        }
        assertThat(shownIds()).as("each event once, in order, none missing")
                .containsExactlyElementsOf(ids(validHistory(jobId)));
    }

    /**
     * The service refuses the stream for a while (503, as an ingress answers while no pod is ready): the browser's
     * EventSource gives up on a non-200 answer, so the page itself follows the job again after a growing delay,
     * and ends with the run complete, each event once.
     */
    @Test
    void pageFollowsTheJobAgainAfterTheServiceRefusedItsStreamForAWhile() {
        startResearchWorker("worker-refused");
        String jobId = startJob("refused for a while");
        try (CuttableProxy proxy = CuttableProxy.start(vertx, base.getPort())) {
            browser().get("http://127.0.0.1:" + proxy.port() + "/?jobId=" + jobId);
            await().atMost(BROWSER_STEP).until(() -> shownIds().size() >= 3);

            proxy.refuse(true);
            proxy.cutAll();
            await().atMost(BROWSER_STEP).until(() -> text("notice").startsWith("The connection to the service was "
                    + "lost; trying again in"));
            assertThat(text("connection")).as("the details say why").isEqualTo("retrying (HTTP 503)");
            proxy.refuse(false);

            awaitOutcome("completed");
        }
        assertThat(shownIds()).as("each event once, in order").containsExactlyElementsOf(ids(validHistory(jobId)));
    }

    @Test
    void abortButtonStopsTheRunningJobAndItsLlmCall() {
        startResearchWorker("worker-abort");
        browser().get(base.toString());
        browser().findElement(By.id("query")).sendKeys("stop me");
        browser().findElement(By.id("start")).click();
        await().atMost(BROWSER_STEP).until(() -> shownIds().size() >= 2);

        browser().findElement(By.id("abort")).click();

        awaitOutcome("aborted");
        String jobId = text("job-id");
        assertThat(text("outcome-text")).isEqualTo("You aborted the research.");
        assertThat(text("progress-label")).isEqualTo("Aborted");
        assertThat(validHistory(jobId)).extracting(e -> e.get("event"))
                .filteredOn(event -> List.of("completed", "failed", "aborted").contains(event)).containsExactly("aborted");
        assertThat(shownIds()).containsExactlyElementsOf(ids(validHistory(jobId)));
        assertThat(lines()).extracting(line -> line.get("event")).last().isEqualTo("aborted");
        assertThat(browser().executeScript("return document.getElementById('percent').position === -1"))
                .as("no bar runs on for an aborted job").isEqualTo(false);
        await().atMost(TIMEOUT).until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);
        assertThat(browser().findElement(By.id("abort")).isDisplayed()).isFalse();
    }

    @Test
    void blankQueryShowsTheApisErrorAndStartsNothing() {
        int queuedBefore = queuedResearchJobs();
        browser().get(base.toString());
        browser().findElement(By.id("query")).sendKeys("   ");
        browser().findElement(By.id("start")).click();

        await().atMost(BROWSER_STEP).until(() -> browser().findElement(By.id("start-error")).isDisplayed());
        assertThat(text("start-error")).isEqualTo("Write a question first: it is blank.");
        assertThat(browser().findElement(By.id("job")).isDisplayed()).isFalse();
        assertThat(browser().getCurrentUrl()).doesNotContain("jobId");
        assertThat(queuedResearchJobs()).isEqualTo(queuedBefore);
    }

    /**
     * With {@code fq.tenancy.source=header}, the page asks for the tenant (the service's settings say it needs one),
     * says in words what is missing, sends the tenant in the configured header, follows the job it started (its stream
     * needs no header), and remembers the tenant for the next visit.
     */
    @Test
    void underHeaderTenancyThePageAsksForTheTenantSendsItAndFollowsTheJob() {
        settings.adjust("fq.tenancy.source", "header");
        simulatorAtFullSpeed();
        startResearchWorker("worker-tenant");
        browser().get(base.toString());
        browser().executeScript("localStorage.clear()");
        browser().navigate().refresh();
        await("the tenant field").atMost(BROWSER_STEP).until(() -> browser().findElement(By.id("tenant")).isDisplayed());
        int queuedBefore = queuedResearchJobs();
        browser().findElement(By.id("query")).sendKeys("whose research?");

        browser().findElement(By.id("start")).click();
        await().atMost(BROWSER_STEP).until(() -> browser().findElement(By.id("start-error")).isDisplayed());
        assertThat(text("start-error")).isEqualTo("Enter your tenant to start research.");
        browser().findElement(By.id("tenant")).sendKeys("two words");
        browser().findElement(By.id("start")).click();
        await().atMost(BROWSER_STEP).until(() -> text("start-error").startsWith("A tenant is 1 to 64 letters"));
        assertThat(text("start-error")).doesNotContain("`").doesNotContain("X-Tenant-Id");
        assertThat(browser().findElement(By.id("job")).isDisplayed()).isFalse();
        assertThat(queuedResearchJobs()).as("nothing started").isEqualTo(queuedBefore);

        browser().findElement(By.id("tenant")).clear();
        browser().findElement(By.id("tenant")).sendKeys("acme");
        browser().findElement(By.id("start")).click();
        awaitOutcome("completed");
        String jobId = text("job-id");
        assertThat(status(jobId).getString("tenant")).isEqualTo("acme");
        assertThat(browser().findElement(By.id("start-error")).isDisplayed()).isFalse();

        browser().get(base.toString());
        await("the tenant, remembered").atMost(BROWSER_STEP).until(() -> "acme".equals(
                browser().executeScript("return document.getElementById('tenant').value")));
    }

    /** The service that needs the tenant in a header refuses a start without it; the page then asks for it in words. */
    @Test
    void aStartRefusedForItsTenantAsksForTheTenantInWords() {
        browser().get(base.toString()); // loaded while the service needs no tenant
        await().atMost(BROWSER_STEP).until(() -> Boolean.TRUE.equals(browser().executeScript(
                "return document.readyState === 'complete' && document.getElementById('tenant-row').hidden")));
        settings.adjust("fq.tenancy.source", "header");
        browser().findElement(By.id("query")).sendKeys("whose research?");

        browser().findElement(By.id("start")).click();

        await().atMost(BROWSER_STEP).until(() -> browser().findElement(By.id("start-error")).isDisplayed());
        assertThat(text("start-error")).isEqualTo("Enter your tenant to start research.");
        assertThat(browser().findElement(By.id("tenant")).isDisplayed()).as("the field, now asked for").isTrue();
    }

    /** @return the research queue's count of waiting jobs (this profile runs no worker of its own) */
    private static int queuedResearchJobs() {
        return given().auth().preemptive().basic("admin", "admin").get("/admin/queues/deep-research").then()
                .statusCode(200).extract().path("counts.waiting");
    }

    @Test
    void linkToAnUnknownJobSaysSo() {
        browser().get(base + "?jobId=no-such-job");

        await().atMost(BROWSER_STEP).until(() -> "unknown".equals(text("state")));
        assertThat(text("notice")).startsWith("There is no research at this address");
        assertThat(text("job-id")).as("in the details").isEqualTo("no-such-job");
        assertThat(text("connection")).isEqualTo("closed");
    }

    /**
     * The browser reconnects an ended event stream by itself after its reconnection time, sending
     * {@code Last-Event-ID}; the server's 204 for an ended job tells it to stop (HTML Living Standard, "Server-sent
     * events": a 204 fails the connection for good). A plain {@code EventSource} that never calls {@code close()}
     * therefore gets the run once and then stays closed.
     */
    @Test
    void plainEventSourceStopsReconnectingOnceTheJobHasEnded() {
        simulatorAtFullSpeed(); // the stream is checked once the job ended
        startResearchWorker("worker-ended");
        String jobId = startJob("ended job");
        browser().get(base.toString());
        browser().executeScript("""
                const probe = window.fqProbe = { events: [], opens: 0 };
                probe.source = new EventSource(arguments[0]);
                probe.source.onopen = () => probe.opens++;
                for (const type of ['started', 'progress', 'reset', 'completed', 'failed', 'aborted']) {
                    probe.source.addEventListener(type, (e) => probe.events.push(e.lastEventId));
                }""", "/research/stream/" + jobId);

        await().atMost(Duration.ofSeconds(30)).until(() -> Long.valueOf(2).equals(
                browser().executeScript("return window.fqProbe.source.readyState")));

        @SuppressWarnings("unchecked")
        List<Object> ids = (List<Object>) browser().executeScript("return window.fqProbe.events");
        assertThat(ids).as("each event once, in order").containsExactlyElementsOf(
                validHistory(jobId).stream().map(e -> e.get("id")).toList());
        assertThat(browser().executeScript("return window.fqProbe.opens"))
                .as("the reconnect got a 204, not a second stream").isEqualTo(1L);
        Object reconnectStatus = browser().executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch(arguments[0], { headers: { 'Last-Event-ID': arguments[1] } }).then((r) => done(r.status));""",
                "/research/stream/" + jobId, ids.get(ids.size() - 1));
        assertThat(reconnectStatus).as("what the browser's reconnect with the terminal event's id gets").isEqualTo(204L);
    }

    /** @return the text the page shows (its {@code innerText}: what is rendered, closed details left out) */
    private String visibleText() {
        return (String) browser().executeScript("return document.querySelector('main').innerText");
    }

    private void awaitOutcome(String event) {
        await().atMost(Duration.ofSeconds(30)).until(() -> event.equals(
                browser().executeScript("return document.getElementById('outcome').dataset.event ?? null")));
        assertThat(text("state")).isEqualTo(event);
    }

    /**
     * @return the page's activity lines: for each its {@code phase}, the type of the last event it stands for
     *         ({@code event}), its run ({@code fencingToken}, a Long), {@code state} and its text (what it says)
     */
    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> lines() {
        return (List<Map<String, Object>>) browser().executeScript("""
                return [...document.querySelectorAll('#events li')].map((li) => ({
                    phase: li.dataset.phase, event: li.dataset.event ?? null, state: li.dataset.state,
                    fencingToken: Number(li.dataset.fencingToken ?? 0),
                    text: li.querySelector('.what').textContent }));""");
    }

    /** @return the stream entry ids of every event the page's activity stands for, in order */
    @SuppressWarnings("unchecked")
    private List<String> shownIds() {
        return (List<String>) browser().executeScript(
                "return [...document.querySelectorAll('#events li')].flatMap((li) => li.dataset.ids.split(' ')"
                        + ".filter(Boolean))");
    }

    private static List<String> ids(List<Map<String, Object>> events) {
        return events.stream().map(e -> (String) e.get("id")).toList();
    }

    private String text(String id) {
        return (String) browser().executeScript("return document.getElementById(arguments[0]).textContent", id);
    }

    private String value(String id) {
        return String.valueOf(browser().executeScript("return document.getElementById(arguments[0]).value", id));
    }

    private static ChromeDriver browser() {
        return CHROMIUM.driver();
    }
}
