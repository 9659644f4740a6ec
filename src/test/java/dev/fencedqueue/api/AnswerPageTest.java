package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.BROWSER_STEP;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.research.OpenAiZombieProfile;
import dev.fencedqueue.testing.ChromiumExtension;
import dev.fencedqueue.testing.HeadlessChromium.Shot;
import dev.fencedqueue.testing.CuttableProxy;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
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
 * The research page with an answer streamed over OpenAI's protocol (the simulator, 400 words at 20 ms), in headless
 * Chromium, through {@code /fenced-stream.js}: the answer appears as it arrives, rendered as Markdown, with a progress
 * indicator that moves and one activity line for the whole answer; a takeover continues it without the page ever
 * blanking, with no text repeated or missing, and says so in one plain line; no fencing token, worker id or attempt
 * shows until the details for developers are opened; a cut connection resumes with no delta repeated or missing;
 * and HTML in the model's output is shown as text and runs nothing. Saves {@code docs/screenshots/answer.png},
 * {@code answer-phone-dark.png}, {@code takeover.png} and {@code takeover-details.png} (its details for developers
 * open).
 */
@QuarkusTest
@RuntimeProfile(OpenAiZombieProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AnswerPageTest extends ResearchTestSupport {

    @RegisterExtension
    static final ChromiumExtension CHROMIUM = new ChromiumExtension();

    @Inject
    Vertx vertx;

    @Test
    void theAnswerAppearsAsItArrivesRenderedAsMarkdownWithItsTokenCount() {
        // A batch of text every 30 characters, never by time: the number of progress events does not depend on pace.
        settings.adjust("fq.llm.stream.delta-interval", "1h");
        settings.adjust("fq.llm.stream.delta-chars", "30");
        startResearchWorker("worker-answer");
        String jobId = startJob("streamed answers");
        browser().get(base + "?jobId=" + jobId);

        await("part of the answer shows while the job runs").atMost(BROWSER_STEP)
                .until(() -> answerSource().length() > 20 && "active".equals(text("state")));
        assertThat(text("tokens")).matches("\\d+ tokens");
        assertThat(text("job-question")).as("the question of a linked job, from its status")
                .isEqualTo("streamed answers");
        // No fq.llm.request.max-tokens here: an indeterminate bar, with the tokens, their rate and the time, which move.
        Map<String, Object> first = indicator();
        assertThat(first.get("indeterminate")).isEqualTo(true);
        assertThat((String) first.get("meta")).matches("[\\d,]+ tokens( · [\\d,]+ tokens/s)? · \\d+:\\d\\d");
        await("the indicator moves while the answer streams").atMost(BROWSER_STEP).until(() -> tokensShown(indicator())
                > tokensShown(first) && "active".equals(text("state")));
        awaitOutcome("completed");

        String result = status(jobId).getString("result.text");
        assertThat(answerSource()).isEqualTo(result);
        assertThat(streamed()).as("the deltas added up to the stored answer").isEqualTo(result);
        assertThat(script("return document.querySelector('#answer-text h2')?.textContent"))
                .as("Markdown rendered").isEqualTo("Research report: streamed answers");
        assertThat(text("tokens")).startsWith("400 tokens");
        long progressEvents = validHistory(jobId).stream().filter(e -> "progress".equals(e.get("event"))).count();
        assertThat(progressEvents).as("a batch every 30 characters of a 400-word answer").isGreaterThan(30);
        assertThat(lines()).as(progressEvents + " progress events, one line for the answer")
                .containsExactly("Started", "Writing the answer");
        assertThat(text("progress-label")).as("finished, said once").isEqualTo("Finished");
        assertThat(visibleText()).containsOnlyOnce("Finished").doesNotContain("Completed").doesNotContain("complete");
        assertThat(browser().findElement(By.id("outcome")).isDisplayed()).as("nothing more to say").isFalse();
        assertThat(browser().findElement(By.id("notice")).isDisplayed()).isFalse();
        long run = status(jobId).getLong("fencingToken");
        assertShowsNoMachineryUntilTheDetailsOpen(jobId, run, "worker-answer");
        CHROMIUM.screenshot("answer", Shot.desktop(1200));
        CHROMIUM.screenshot("answer-phone-dark", Shot.phoneDark(1400));
    }

    /** A 2,000-token answer, hundreds of progress events, still makes a handful of activity lines. */
    @Test
    void aLongAnswerKeepsItsActivityToAHandfulOfLines() {
        settings.adjust("fq.simulator.answer.words", "2000");
        settings.adjust("fq.simulator.answer.token-interval", "1ms");
        // A batch of text every 20 characters, never by time: hundreds of progress events, whatever the pace.
        settings.adjust("fq.llm.stream.delta-interval", "1h");
        settings.adjust("fq.llm.stream.delta-chars", "20");
        startResearchWorker("worker-long");
        String jobId = startJob("a long answer");
        browser().get(base + "?jobId=" + jobId);
        awaitOutcome("completed");

        assertThat(text("tokens")).startsWith("2000 tokens");
        long progressEvents = validHistory(jobId).stream().filter(e -> "progress".equals(e.get("event"))).count();
        assertThat(progressEvents).as("progress events of a 2,000-word answer, a batch every 20 characters")
                .isGreaterThan(200);
        assertThat(lines()).as(progressEvents + " progress events").hasSizeLessThanOrEqualTo(5)
                .contains("Writing the answer");
    }

    @Test
    void aTakeoverContinuesTheAnswerOnThePageWhichNeverBlanks() {
        Worker workerA = startResearchWorker("worker-A");
        String jobId = startJob("taken over mid-answer");
        browser().get(base + "?jobId=" + jobId);
        await().atMost(BROWSER_STEP).until(() -> answerSource().length() > 20);
        long runOfA = status(jobId).getLong("fencingToken");
        script("""
                const text = document.getElementById('answer-text');
                window.shownLengths = [text.dataset.source.length];
                new MutationObserver(() => window.shownLengths.push((text.dataset.source ?? '').length))
                    .observe(text, { attributes: true, attributeFilter: ['data-source'] });""");

        long runOfB = takeOver(workerA, worker(research, "worker-B"), jobId);
        await("the page shows B's run").atMost(BROWSER_STEP).until(() -> text("run").contains("fencing token " + runOfB));
        awaitOutcome("completed");

        assertThat(lines()).as("one plain line for the interruption").containsExactly("Started", "Writing the answer",
                "The answer was interrupted and went on where it stopped.", "Writing the answer");
        assertThat(browser().findElement(By.id("notice")).isDisplayed()).as("said once, in the activity").isFalse();
        assertShowsNoMachineryUntilTheDetailsOpen(jobId, runOfB, "worker-B");
        assertThat(text("runs")).contains("fencing token " + runOfA).contains("worker-A").contains("worker-B")
                .contains("took the job over");
        browser().executeScript("document.getElementById('details').open = true; window.scrollTo(0, 0)");
        CHROMIUM.screenshot("takeover-details", Shot.desktop(4000));
        browser().executeScript("document.getElementById('details').open = false");
        CHROMIUM.screenshot("takeover", Shot.desktop(1100));
        assertThat(streamed()).as("A's deltas up to the resume point, then B's: nothing repeated or missing")
                .isEqualTo(status(jobId).getString("result.text"));
        assertThat(shownTokens()).contains(runOfA, runOfB);
        @SuppressWarnings("unchecked")
        List<Long> lengths = (List<Long>) script("return window.shownLengths");
        assertThat(lengths).as("the answer on the page only ever grew").isSorted();
        assertThat(status(jobId).getLong("fencingToken")).as("B's run finished the job").isEqualTo(runOfB);
    }

    @Test
    void aCutConnectionResumesWithNoDeltaRepeatedOrMissing() {
        startResearchWorker("worker-cut");
        String jobId = startJob("cut mid-answer");
        try (CuttableProxy proxy = CuttableProxy.start(vertx, base.getPort())) {
            browser().get("http://127.0.0.1:" + proxy.port() + "/?jobId=" + jobId);
            await().atMost(BROWSER_STEP).until(() -> answerSource().length() > 20);
            int acceptedBeforeCut = proxy.accepted();

            proxy.cutAll();

            awaitOutcome("completed");
            assertThat(proxy.accepted()).as("the browser reconnected through the proxy").isGreaterThan(acceptedBeforeCut);
        }
        assertThat(streamed()).isEqualTo(status(jobId).getString("result.text"));
        assertThat(shownIds()).as("each event once, in order").doesNotHaveDuplicates()
                .containsExactlyElementsOf(validHistory(jobId).stream().map(e -> (String) e.get("id")).toList());
    }

    @Test
    void htmlInTheModelsOutputIsShownAsTextAndRunsNothing() {
        simulatorAtFullSpeed(); // what the page shows of the answer is checked at its end, not while it streams
        startResearchWorker("worker-xss");
        String attack = "<script>window.pwned = 1</script> <img src=x onerror=\"window.pwned = 2\">";
        String jobId = startJob(attack);
        browser().get(base + "?jobId=" + jobId);

        awaitOutcome("completed");

        assertThat(script("return String(window.pwned)")).as("nothing ran").isEqualTo("undefined");
        assertThat(script("return document.querySelectorAll('#answer-text script, #answer-text img').length"))
                .isEqualTo(0L);
        assertThat(script("return document.getElementById('answer-text').textContent")).asString()
                .contains("<script>window.pwned = 1</script>").contains("onerror=\"window.pwned = 2\"");
    }

    /**
     * What a reader sees is the question, the progress and the answer: no job id, fencing token, worker id or attempt
     * shows until the details for developers are opened (closed by default), which then show them.
     */
    private void assertShowsNoMachineryUntilTheDetailsOpen(String jobId, long run, String workerId) {
        assertThat(browser().executeScript("return document.getElementById('details').open")).isEqualTo(false);
        assertThat(visibleText()).as("what the page shows with its details closed").isNotBlank()
                .doesNotContain(jobId).doesNotContain(String.valueOf(run)).doesNotContain(workerId)
                .doesNotContainIgnoringCase("fencing token").doesNotContainIgnoringCase("attempt")
                .doesNotContainIgnoringCase("worker");

        browser().findElement(By.cssSelector("#details summary")).click();

        await("the details open").atMost(BROWSER_STEP).until(() -> visibleText().contains(jobId));
        assertThat(visibleText()).contains("fencing token " + run).contains(workerId).contains("attempt");
        browser().findElement(By.cssSelector("#details summary")).click();
    }

    /** @return the text the page shows (its {@code innerText}: what is rendered, closed details left out) */
    private String visibleText() {
        return (String) script("return document.querySelector('main').innerText");
    }

    private void awaitOutcome(String event) {
        await().atMost(BROWSER_STEP).until(() -> event.equals(
                script("return document.getElementById('outcome').dataset.event ?? null")));
        assertThat(text("state")).isEqualTo(event);
    }

    private String answerSource() {
        Object source = script("return document.getElementById('answer-text').dataset.source ?? ''");
        return String.valueOf(source);
    }

    private String streamed() {
        return String.valueOf(script("return document.getElementById('answer-text').dataset.streamed ?? ''"));
    }

    /** @return the stream entry ids of every event the activity stands for, in order */
    @SuppressWarnings("unchecked")
    private List<String> shownIds() {
        return (List<String>) script("return [...document.querySelectorAll('#events li')].flatMap((li) => "
                + "li.dataset.ids.split(' ').filter(Boolean))");
    }

    /** @return what each activity line says */
    @SuppressWarnings("unchecked")
    private List<String> lines() {
        return (List<String>) script("return [...document.querySelectorAll('#events li')]"
                + ".map((li) => li.querySelector('.what').textContent)");
    }

    /** @return the runs of the activity's lines */
    private List<Object> shownTokens() {
        return ((List<?>) script("return [...document.querySelectorAll('#events li')].map((li) => "
                + "Number(li.dataset.fencingToken))")).stream().map(Object.class::cast).toList();
    }

    /**
     * @return the progress indicator: {@code indeterminate} (whether the bar has no value: nothing to measure against)
     *         and {@code meta}, its figures
     */
    @SuppressWarnings("unchecked")
    private Map<String, Object> indicator() {
        return (Map<String, Object>) script("const bar = document.getElementById('percent'); return { indeterminate: "
                + "bar.position === -1, meta: document.getElementById('progress-meta')?.textContent ?? '' }");
    }

    /** @return the tokens an indicator's figures show, -1 when none */
    private static long tokensShown(Map<String, Object> indicator) {
        String meta = String.valueOf(indicator.get("meta")).replace(",", "");
        return meta.matches("\\d+ tokens.*") ? Long.parseLong(meta.substring(0, meta.indexOf(' '))) : -1;
    }

    private String text(String id) {
        return (String) script("return document.getElementById(arguments[0]).textContent", id);
    }

    private Object script(String script, Object... args) {
        return browser().executeScript(script, args);
    }

    private static ChromeDriver browser() {
        return CHROMIUM.driver();
    }
}
