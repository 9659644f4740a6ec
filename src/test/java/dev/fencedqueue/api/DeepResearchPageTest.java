package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.BROWSER_STEP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ChromiumExtension;
import dev.fencedqueue.testing.HeadlessChromium.Shot;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The research page following a deep research job in a real headless Chromium, over the job's flow stream: planning
 * from the job's first second, then the plan's sub-questions as rows, each showing its own child job's run to its end
 * and opening onto its answer, then the report; the parent going on after its children is no takeover. A reload (a
 * {@code ?jobId=} link) shows the same, the question included. Saves {@code docs/screenshots/deep-research.png}.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DeepResearchPageTest extends ResearchTestSupport {

    @RegisterExtension
    static final ChromiumExtension CHROMIUM = new ChromiumExtension();

    @Test
    void pageShowsPlanningThenTheSubQuestionsEachOpeningOntoItsAnswerThenTheReport() {
        startResearchWorker("worker-deep");
        browser().get(base.toString());
        browser().findElement(By.id("query")).sendKeys("offshore wind");
        browser().findElement(By.id("deep")).click();
        browser().findElement(By.id("start")).click();

        await("planning, from the job's first second").atMost(BROWSER_STEP).until(() -> lines().stream().anyMatch(
                line -> "planning".equals(line.get("phase")) && "live".equals(line.get("state"))));
        await("the plan's rows").atMost(BROWSER_STEP).until(() -> rows().size() == 3);
        awaitReport();
        String jobId = text("job-id");
        assertThat(browser().getCurrentUrl()).endsWith("?jobId=" + jobId + "&mode=deep");
        assertShowsTheFlow(jobId);

        String first = jobId + ":q1";
        assertThat(browser().findElement(By.cssSelector("#child-list li[data-job-id='" + first + "'] .child-answer"))
                .isDisplayed()).as("closed at first").isFalse();
        browser().findElement(By.cssSelector("#child-list li[data-job-id='" + first + "'] summary")).click();
        await("the sub-question's answer opens").atMost(BROWSER_STEP).until(() -> browser().findElement(
                By.cssSelector("#child-list li[data-job-id='" + first + "'] .child-answer")).isDisplayed());
        assertThat(browser().findElement(By.cssSelector("#child-list li[data-job-id='" + first + "'] .child-answer"))
                .getText()).isEqualTo(status(first).getString("result.summary"));
        CHROMIUM.screenshot("deep-research", Shot.desktop(2200));

        browser().navigate().refresh();
        awaitReport();
        assertShowsTheFlow(jobId);
        assertThat(text("job-question")).as("the question of a linked job, from its status").isEqualTo("offshore wind");
    }

    private void assertShowsTheFlow(String jobId) {
        await("every child's end, and the flow's").atMost(BROWSER_STEP).until(() -> "ended".equals(text("connection"))
                && rows().stream().allMatch(row -> "completed".equals(row.get("state"))));
        List<Map<String, Object>> rows = rows();
        assertThat(rows).extracting(row -> row.get("jobId")).containsExactly(jobId + ":q1", jobId + ":q2", jobId + ":q3");
        for (Map<String, Object> row : rows) {
            String child = (String) row.get("jobId");
            assertThat(row).as(child).containsEntry("state", "completed").containsEntry("percent", "100")
                    .containsEntry("query", status(child).getString("data.query"))
                    .containsEntry("fencingToken", String.valueOf(status(child).getLong("fencingToken")));
        }
        assertThat(text("answer-text")).startsWith("Research report on \"Deep research: offshore wind\"");
        assertThat(shownIds()).as("the job's own events, each once").containsExactlyElementsOf(
                validHistory(jobId).stream().map(e -> (String) e.get("id")).toList());
        assertThat(validHistory(jobId)).extracting(e -> e.get("event")).contains("resume").doesNotContain("reset");
        assertThat(lines()).as("one line per phase").extracting(line -> line.get("text")).containsExactly(
                "Started", "Planned 3 sub-questions", "Researched 3 sub-questions", "Writing the report");
        assertThat(text("progress-label")).isEqualTo("Finished");
        assertThat(browser().findElement(By.id("notice")).isDisplayed())
                .as("going on after its children is no takeover").isFalse();
        String visible = visibleText();
        assertThat(visible).as("no machinery shows").doesNotContain(jobId).doesNotContain("worker-deep")
                .doesNotContainIgnoringCase("fencing token").doesNotContainIgnoringCase("attempt");
        for (Map<String, Object> row : rows) {
            assertThat(visible).doesNotContain((String) row.get("fencingToken"));
        }
        assertThat(text("runs")).as("the details name each run, the sub-questions' too")
                .contains("Sub-question 1: started").contains("worker-deep")
                .contains("fencing token " + rows.get(0).get("fencingToken"));
    }

    /**
     * While the plan is written (OpenAI's protocol, a word every 150 ms), each sub-question shows as soon as its line is
     * complete: rows appear one by one while the planning line is live, and say how many so far.
     */
    @Test
    void theSubQuestionsAppearOneByOneWhileThePlanIsWritten() {
        settings.adjust("fq.llm.protocol", "openai");
        settings.adjust("fq.simulator.answer.token-interval", "150ms");
        startResearchWorker("worker-plan");
        browser().get(base.toString());
        browser().findElement(By.id("query")).sendKeys("How do fencing tokens make distributed locks safe?");
        browser().findElement(By.id("deep")).click();
        browser().findElement(By.id("start")).click();

        await("a sub-question while the plan is still written").atMost(BROWSER_STEP).until(() -> rows().size() == 1
                && planningLine().map(line -> "live".equals(line.get("state"))).orElse(false));
        assertThat(planningLine().orElseThrow().get("text")).isEqualTo("Planning the research");
        assertThat(text("events")).contains("1 sub-question so far");
        assertThat(rows().get(0).get("query")).asString().endsWith("?").contains("fencing tokens");
        CHROMIUM.screenshot("deep-research-planning", Shot.desktop(1000));
        await("the next one, still planning").atMost(BROWSER_STEP).until(() -> rows().size() == 2
                && planningLine().map(line -> "live".equals(line.get("state"))).orElse(false));
        simulatorAtFullSpeed(); // the children and the report (the plan's stream keeps its pace)
        await("the plan").atMost(BROWSER_STEP).until(() -> "Planned 3 sub-questions".equals(
                planningLine().map(line -> line.get("text")).orElse(null)));
        String jobId = text("job-id");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> plan = (List<Map<String, Object>>) validHistory(jobId).stream()
                .filter(event -> "plan".equals(event.get("event"))).findFirst().orElseThrow().get("subQuestions");
        assertThat(rows()).extracting(row -> row.get("query")).as("the rows drafted are the plan's")
                .containsExactlyElementsOf(plan.stream().map(sub -> sub.get("query")).toList());
        assertThat(rows()).extracting(row -> row.get("jobId")).containsExactly(jobId + ":q1", jobId + ":q2",
                jobId + ":q3");
        awaitReport();
    }

    private java.util.Optional<Map<String, Object>> planningLine() {
        return lines().stream().filter(line -> "planning".equals(line.get("phase"))).findFirst();
    }

    /** @return the text the page shows (its {@code innerText}: what is rendered, closed details left out) */
    private String visibleText() {
        return (String) browser().executeScript("return document.querySelector('main').innerText");
    }

    private void awaitReport() {
        await("the report").atMost(Duration.ofSeconds(90)).until(() -> "completed".equals(
                browser().executeScript("return document.getElementById('outcome').dataset.event ?? null")));
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> rows() {
        return (List<Map<String, Object>>) browser().executeScript("""
                return [...document.querySelectorAll('#child-list li')].map((li) => ({
                    jobId: li.dataset.jobId, state: li.dataset.state, fencingToken: li.dataset.fencingToken ?? null,
                    query: li.querySelector('.child-query').textContent,
                    percent: String(li.querySelector('progress').value) }));""");
    }

    /** @return the activity's lines: {@code phase}, {@code state} and what each says ({@code text}) */
    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> lines() {
        return (List<Map<String, Object>>) browser().executeScript("""
                return [...document.querySelectorAll('#events li')].map((li) => ({ phase: li.dataset.phase,
                    state: li.dataset.state, text: li.querySelector('.what').textContent }));""");
    }

    /** @return the stream entry ids of every event the activity stands for, in order */
    @SuppressWarnings("unchecked")
    private List<String> shownIds() {
        return (List<String>) browser().executeScript(
                "return [...document.querySelectorAll('#events li')].flatMap((li) => li.dataset.ids.split(' ')"
                        + ".filter(Boolean))");
    }

    private String text(String id) {
        return (String) browser().executeScript("return document.getElementById(arguments[0]).textContent", id);
    }

    private static ChromeDriver browser() {
        return CHROMIUM.driver();
    }
}
