package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.BROWSER_STEP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.ChromiumExtension;
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
 * The research page following a deep research job in a real headless Chromium, over the job's flow stream: the plan's
 * sub-questions as rows, each row showing its own child job's run to its end, then the report; a reload shows the
 * same.
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DeepResearchPageTest extends ResearchTestSupport {

    @RegisterExtension
    static final ChromiumExtension CHROMIUM = new ChromiumExtension();

    @Test
    void pageShowsThePlansChildrenSideBySideThenTheReport() {
        startResearchWorker("worker-deep");
        browser().get(base.toString());
        browser().findElement(By.id("query")).sendKeys("offshore wind");
        browser().findElement(By.id("deep")).click();
        browser().findElement(By.id("start")).click();

        await("the plan's rows").atMost(BROWSER_STEP).until(() -> rows().size() == 3);
        awaitReport();
        String jobId = text("job-id");
        assertThat(browser().getCurrentUrl()).endsWith("?jobId=" + jobId + "&mode=deep");
        assertShowsTheFlow(jobId);

        browser().navigate().refresh();
        awaitReport();
        assertShowsTheFlow(jobId);
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
        assertThat(text("outcome-text")).startsWith("Research report on \"Deep research: offshore wind\"");
        assertThat(shownEventTypes()).startsWith("started", "plan").contains("resume").endsWith("completed")
                .doesNotContain("reset");
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

    @SuppressWarnings("unchecked")
    private List<String> shownEventTypes() {
        return (List<String>) browser().executeScript(
                "return [...document.querySelectorAll('#events li')].map((li) => li.dataset.event)");
    }

    private String text(String id) {
        return (String) browser().executeScript("return document.getElementById(arguments[0]).textContent", id);
    }

    private static ChromeDriver browser() {
        return CHROMIUM.driver();
    }
}
