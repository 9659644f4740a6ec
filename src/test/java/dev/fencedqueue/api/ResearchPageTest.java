package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.BROWSER_STEP;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
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
 * job over from a frozen one. The profile's simulator streams 30 steps, one every 200 ms.
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
        startResearchWorker("worker-page");
        browser().get(base.toString());
        browser().findElement(By.id("query")).sendKeys("fencing tokens in practice");
        browser().findElement(By.id("start")).click();

        awaitOutcome("completed");
        String jobId = text("job-id");
        assertThat(browser().getCurrentUrl()).as("a reload follows the same job").endsWith("?jobId=" + jobId);
        List<Map<String, Object>> shown = shownEvents();
        assertThat(shown).extracting(e -> e.get("event")).first().isEqualTo("started");
        assertThat(shown).extracting(e -> e.get("event")).last().isEqualTo("completed");
        assertThat(shown).filteredOn(e -> "progress".equals(e.get("event"))).hasSize(30);
        long run = status(jobId).getLong("fencingToken");
        assertThat(run).isPositive();
        assertThat(shown).extracting(e -> e.get("fencingToken")).containsOnly(run);
        assertThat(shown).hasSameSizeAs(validHistory(jobId));
        assertThat(text("outcome-text")).contains("fencing tokens in practice");
        assertThat(value("percent")).isEqualTo("100");
        assertThat(browser().findElement(By.id("notice")).isDisplayed()).as("no takeover notice").isFalse();
    }

    @Test
    void pageDropsTheOldRunAndShowsOnlyTheNewOneAfterAWorkerTookTheJobOver() {
        Worker workerA = startResearchWorker("worker-A");
        Worker workerB = worker(research, "worker-B");
        String jobId = startJob("takeover in the browser");
        browser().get(base + "?jobId=" + jobId);
        await().atMost(BROWSER_STEP).until(() -> shownEvents().stream().filter(e -> "progress".equals(e.get("event"))).count() >= 2);
        long runOfA = status(jobId).getLong("fencingToken");
        assertThat(shownEvents()).extracting(e -> e.get("fencingToken")).containsOnly(runOfA);

        workerA.freeze(true);
        workerB.start();
        awaitOutcome("completed");

        long runOfB = status(jobId).getLong("fencingToken");
        assertThat(runOfB).as("a newer run").isGreaterThan(runOfA);
        List<Map<String, Object>> shown = shownEvents();
        assertThat(shown).as("only the new run is shown").extracting(e -> e.get("fencingToken")).containsOnly(runOfB);
        assertThat(shown.get(0)).containsEntry("event", "started").containsEntry("text", "Started on worker-B");
        assertThat(shown).filteredOn(e -> "completed".equals(e.get("event"))).hasSize(1);
        assertThat(shown).extracting(e -> e.get("event")).last().isEqualTo("completed");
        assertThat(shown).hasSameSizeAs(validHistory(jobId));
        assertThat(text("run")).contains("fencing token " + runOfB);
        assertThat(text("notice")).contains("fencing token " + runOfA + " stopped")
                .contains("taken over by the run with fencing token " + runOfB);
    }

    /**
     * A run that continues the answer (a {@code resume}): the page keeps the text it shows, never blanks, and goes on
     * with the new run's text, with a short note; a {@code MutationObserver} records every text the answer showed.
     */
    @Test
    void pageKeepsTheAnswerWhenANewerRunResumesIt() {
        ProbeProcessor processorA = ProbeProcessor.held(research.queue());
        ProbeProcessor processorB = ProbeProcessor.held(research.queue());
        Worker workerA = worker(processorA, "worker-A");
        Worker workerB = worker(processorB, "worker-B");
        workerA.start();
        String jobId = startJob("resume in the browser");
        await().atMost(TIMEOUT).until(() -> processorA.started() > 0);
        JobContext first = processorA.attempt(0).context();
        delta(first, "The answer ");
        delta(first, "begins");
        browser().get(base + "?jobId=" + jobId);
        await().atMost(BROWSER_STEP).until(() -> text("answer-text").contains("The answer begins"));
        browser().executeScript("""
                window.answerTexts = [];
                new MutationObserver(() => window.answerTexts.push(document.getElementById('answer-text').textContent))
                    .observe(document.getElementById('answer-text'), { childList: true, subtree: true, characterData: true });""");

        workerA.freeze(true);
        workerB.start();
        await().atMost(TIMEOUT).until(() -> processorB.started() > 0);
        JobContext second = processorB.attempt(0).context();
        second.resume().await().atMost(TIMEOUT);
        delta(second, " and goes on.");
        processorB.attempt(0).complete("done");
        awaitOutcome("completed");

        assertThat(text("answer-text")).contains("The answer begins and goes on.");
        @SuppressWarnings("unchecked")
        List<String> texts = (List<String>) browser().executeScript("return window.answerTexts");
        assertThat(texts).as("the answer never blanked").allMatch(t -> t.contains("The answer begins"));
        assertThat(text("notice")).contains("Continued on another worker (worker-B)");
        assertThat(shownEvents()).extracting(e -> e.get("event")).doesNotContain("reset")
                .containsSubsequence("progress", "resume", "progress", "completed");
        assertThat(shownEvents()).extracting(e -> e.get("id"))
                .containsExactlyElementsOf(validHistory(jobId).stream().map(e -> e.get("id")).toList());
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
            await().atMost(BROWSER_STEP).until(() -> shownEvents().stream().filter(e -> "progress".equals(e.get("event"))).count() >= 3);
            int acceptedBeforeCut = proxy.accepted();

            proxy.cutAll();

            awaitOutcome("completed");
            assertThat(proxy.accepted()).as("the browser reconnected through the proxy").isGreaterThan(acceptedBeforeCut);
        }
        List<Object> shownIds = shownEvents().stream().map(e -> e.get("id")).toList();
        assertThat(shownIds).as("each event once, in order, none missing")
                .containsExactlyElementsOf(validHistory(jobId).stream().map(e -> e.get("id")).toList());
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
            await().atMost(BROWSER_STEP).until(() -> shownEvents().stream().filter(e -> "progress".equals(e.get("event"))).count() >= 2);

            proxy.refuse(true);
            proxy.cutAll();
            await().atMost(BROWSER_STEP).until(() -> text("notice").contains("HTTP 503"));
            proxy.refuse(false);

            awaitOutcome("completed");
        }
        assertThat(shownEvents()).extracting(e -> e.get("id")).as("each event once, in order")
                .containsExactlyElementsOf(validHistory(jobId).stream().map(e -> e.get("id")).toList());
    }

    @Test
    void abortButtonStopsTheRunningJobAndItsLlmCall() {
        startResearchWorker("worker-abort");
        browser().get(base.toString());
        browser().findElement(By.id("query")).sendKeys("stop me");
        browser().findElement(By.id("start")).click();
        await().atMost(BROWSER_STEP).until(() -> shownEvents().stream().anyMatch(e -> "progress".equals(e.get("event"))));

        browser().findElement(By.id("abort")).click();

        awaitOutcome("aborted");
        String jobId = text("job-id");
        assertThat(text("outcome-text")).isEqualTo("aborted by user");
        assertThat(shownEvents()).filteredOn(e -> List.of("completed", "failed", "aborted").contains(e.get("event")))
                .extracting(e -> e.get("event")).containsExactly("aborted");
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
        assertThat(text("start-error")).contains("blank");
        assertThat(browser().findElement(By.id("job")).isDisplayed()).isFalse();
        assertThat(browser().getCurrentUrl()).doesNotContain("jobId");
        assertThat(queuedResearchJobs()).isEqualTo(queuedBefore);
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
        assertThat(text("notice")).contains("no-such-job");
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

    private void awaitOutcome(String event) {
        await().atMost(Duration.ofSeconds(30)).until(() -> event.equals(
                browser().executeScript("return document.getElementById('outcome').dataset.event ?? null")));
        assertThat(text("state")).isEqualTo(event);
    }

    /** @return the page's event list: for each item its stream entry {@code id}, {@code event}, {@code fencingToken} (Long) and text */
    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> shownEvents() {
        return (List<Map<String, Object>>) browser().executeScript("""
                return [...document.querySelectorAll('#events li')].map((li) => ({
                    id: li.dataset.id, event: li.dataset.event, fencingToken: Number(li.dataset.fencingToken),
                    text: li.textContent }));""");
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
