package dev.fencedqueue.api.admin;

import static dev.fencedqueue.testing.Timeouts.BROWSER_STEP;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;

import java.net.URL;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.fencedqueue.budget.BudgetKey;
import dev.fencedqueue.budget.LlmBudget;
import dev.fencedqueue.budget.LlmBudgets;
import dev.fencedqueue.testing.ChromiumExtension;
import dev.fencedqueue.testing.HeadlessChromium.Shot;
import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The operator console ({@code /admin/}) in a real headless Chromium, signed in with HTTP Basic: an operator
 * watches a 100,000-subscriber fan-out's progress bar move live, aborts it (it stops at a chunk boundary with its
 * cursor kept), removes its throttle (the form shows the current one) and resumes it, and it finishes with every
 * subscriber notified exactly once. A screenshot of the console is saved as
 * {@code docs/screenshots/admin-console.png}.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminConsoleTest {

    private static final int SUBSCRIBERS = 100_000;
    @RegisterExtension
    static final ChromiumExtension CHROMIUM = new ChromiumExtension();

    @TestHTTPResource("/")
    URL base;

    @PostgresTestResource.InjectPostgres
    NotificationRows rows;

    @jakarta.inject.Inject
    LlmBudgets llmBudgets;

    @jakarta.inject.Inject
    LlmBudget llmBudget;

    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "fq.research.queue")
    String researchQueue;

    @Test
    void operatorWatchesAbortsThrottlesAndResumesAFanOutThatEndsExactlyOnce() throws Exception {
        String channel = rows.channelWith(SUBSCRIBERS);
        String jobId = given().contentType(ContentType.JSON).body(Map.of("message", "console", "chunkSize", 500,
                "throttle", Map.of("pauseBetweenChunksMs", 150))).post("/notifications/channels/" + channel + "/fan-out")
                .then().statusCode(202).extract().path("jobId");

        browser().get(base.toString().replace("://", "://admin:admin@") + "admin/");
        assertThat(browser().getCurrentUrl()).as("the console's address").endsWith("/admin/console/");
        await("the fan-out is listed as active").atMost(BROWSER_STEP).until(() -> Boolean.TRUE.equals(browser()
                .executeScript("return document.querySelector(`#jobs li[data-job-id='${arguments[0]}']`) !== null", jobId)));
        Set<String> seen = new HashSet<>();
        await("its progress bar moves live").atMost(BROWSER_STEP).until(() -> {
            seen.add(String.valueOf(browser().executeScript(
                    "return document.querySelector(`#jobs progress[data-job-id='${arguments[0]}']`).value", jobId)));
            return seen.size() >= 3;
        });

        browser().findElement(By.cssSelector("#jobs li[data-job-id='" + jobId + "'] .job-link")).click();
        await().atMost(BROWSER_STEP).until(() -> "active".equals(text("detail-state")) && !text("detail-events").isEmpty());
        long firstEpoch = Long.parseLong(text("detail-token"));
        assertThat(firstEpoch).isPositive();
        await("the throttle form shows the job's throttle").atMost(BROWSER_STEP).until(() -> "150".equals(
                value("pause-ms")));
        assertThat(value("max-rate")).as("no rate limit").isEmpty();
        CHROMIUM.screenshot("admin-console", new Shot(1280, 1400, false));

        browser().findElement(By.id("abort")).click();
        browser().switchTo().alert().accept();
        await("stopped at a chunk boundary").atMost(BROWSER_STEP).until(() -> "aborted".equals(text("detail-state")));
        long itemsDone = Long.parseLong(text("detail-items").split(" ")[0]);
        assertThat(itemsDone).isPositive().isLessThan(SUBSCRIBERS);
        assertThat(itemsDone % 500).as("a whole number of chunks").isZero();
        assertThat(text("detail-cursor")).isEqualTo(String.format("s-%06d", itemsDone - 1));
        assertThat(rows.rows("notification", jobId)).as("rows = the cursor's items").isEqualTo(itemsDone);
        assertThat(text("message")).contains("stops at its next chunk boundary");

        // Typed as an operator types, the field keeping the focus (WebDriver's clear() gives it up, and the console's
        // refresh would then fill the job's throttle back in before the new value is typed).
        browser().findElement(By.id("pause-ms")).sendKeys(Keys.chord(Keys.CONTROL, "a"), "0");
        browser().findElement(By.id("set-throttle")).click();
        await().atMost(BROWSER_STEP).until(() -> text("detail-throttle").startsWith("pause 0 ms"));

        browser().findElement(By.id("resume")).click();
        await("the resumed fan-out finishes").atMost(Duration.ofMinutes(3))
                .until(() -> "completed".equals(text("detail-state")));
        assertThat(text("detail-items")).isEqualTo(SUBSCRIBERS + " of " + SUBSCRIBERS);
        assertThat(Long.parseLong(text("detail-token"))).as("the resume ran as a new epoch").isGreaterThan(firstEpoch);
        assertThat(text("error")).isEmpty();

        assertThat(rows.rows("notification", jobId)).isEqualTo(SUBSCRIBERS);
        assertThat(rows.notExactlyOnce("notification", channel, jobId)).isZero();
        assertThat(rows.notExactlyOnce("push_outbox", channel, jobId)).isZero();
    }

    @Test
    void operatorFollowsAFlowFromItsParentToItsChildrenAndBack() {
        // The children go to a queue nobody serves: the parent keeps waiting for them while the operator looks.
        String flowId = "console-flow-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String childQueue = "console-parts-" + flowId.substring(flowId.length() - 8);
        given().auth().preemptive().basic("admin", "admin").contentType(ContentType.JSON).body(Map.of("queue",
                researchQueue, "name", "weekly-report", "data", Map.of("query", "the weekly report"),
                "options", Map.of("jobId", flowId), "children", java.util.List.of(
                        Map.of("queue", childQueue, "name", "part", "key", "north"),
                        Map.of("queue", childQueue, "name", "part", "key", "south"))))
                .post("/admin/flows").then().statusCode(201);

        // Through the redirect, as an operator types it: the console's own address carries no credentials, which
        // Chromium would refuse to send requests from.
        browser().get(base.toString().replace("://", "://admin:admin@") + "admin/");
        await("the queues are listed").atMost(BROWSER_STEP).until(() -> !browser().findElements(By.cssSelector(
                "#queue option[value='" + researchQueue + "']")).isEmpty());
        browser().findElement(By.cssSelector("#queue option[value='" + researchQueue + "']")).click();
        browser().findElement(By.cssSelector("input[name=state][value=waiting-children]")).click();
        await("the parent is listed as waiting for its children").atMost(BROWSER_STEP).until(() -> Boolean.TRUE.equals(
                browser().executeScript("return document.querySelector(`#jobs li[data-job-id='${arguments[0]}']`) !== null",
                        flowId)));
        browser().findElement(By.cssSelector("#jobs li[data-job-id='" + flowId + "'] .job-link")).click();
        await().atMost(BROWSER_STEP).until(() -> "waiting-children".equals(text("detail-state"))
                && text("detail-children").contains(flowId + ":south"));
        assertThat(text("detail-children")).contains(flowId + ":north in " + childQueue + ", waiting (waited for)");
        assertThat(text("detail-parent")).isEqualTo("none");

        clickNow("#detail-children button[aria-label='Show job " + flowId + ":north of queue " + childQueue + "']");
        await("the child's detail, with its parent").atMost(BROWSER_STEP).until(() -> text("detail-id").equals(flowId
                + ":north") && text("detail-parent").equals(flowId + " (" + researchQueue + ")"));
        assertThat(text("detail-state")).isEqualTo("waiting");
        clickNow("#detail-parent button");
        await("back to the parent").atMost(BROWSER_STEP).until(() -> text("detail-id").equals(flowId));
        assertThat(text("error")).isEmpty();

        given().auth().preemptive().basic("admin", "admin").post("/admin/queues/" + researchQueue + "/jobs/" + flowId
                + "/abort").then().statusCode(200);
        given().auth().preemptive().basic("admin", "admin").get("/admin/queues/" + childQueue + "/jobs/" + flowId
                + ":north").then().statusCode(200).body("state", org.hamcrest.Matchers.equalTo("aborted"));

        // A job that ended without running (no progress) shows no running (indeterminate) bar, but why it ended.
        browser().findElement(By.cssSelector("input[name=state][value=failed]")).click();
        String row = "#jobs li[data-job-id='" + flowId + "']";
        // The row may first come from the queue's live feed; the listing's next refresh fills in why it ended.
        await("the parent is listed as failed or aborted, with why").atMost(BROWSER_STEP)
                .until(() -> !textOf(row).isEmpty() && !textOf(row + " .job-progress").isEmpty());
        assertThat(browser().executeScript("const bar = document.querySelector(arguments[0] + ' progress'); "
                + "return bar.checkVisibility() && bar.position === -1", row)).as("no running bar").isEqualTo(false);
    }

    @Test
    void operatorPausesRunsNowAndRemovesASchedulerInTheSchedulesView() {
        String id = "console-schedule-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        given().auth().preemptive().basic("admin", "admin").contentType(ContentType.JSON).body(Map.of("every", 3_600_000,
                "template", Map.of("queue", researchQueue, "name", "research", "data", Map.of("query", "weekly news"))))
                .put("/admin/schedulers/" + id).then().statusCode(200);

        String tokyo = id + "-tokyo";
        given().auth().preemptive().basic("admin", "admin").contentType(ContentType.JSON).body(Map.of("pattern",
                "0 9 * * *", "tz", "Asia/Tokyo", "template", Map.of("queue", researchQueue, "name", "research", "data",
                        Map.of("query", "morning news")))).put("/admin/schedulers/" + tokyo).then().statusCode(200);

        browser().get(base.toString().replace("://", "://admin:admin@") + "admin/");
        String row = "#schedules tr[data-scheduler='" + id + "']";
        await("the scheduler is listed").atMost(BROWSER_STEP).until(() -> !browser().findElements(By.cssSelector(row))
                .isEmpty() && !textOf("#schedules tr[data-scheduler='" + tokyo + "']").isEmpty());
        assertThat(textOf(row)).contains("every 3600000 ms").contains(researchQueue).doesNotContain("paused");
        assertThat(textOf("#schedules tr[data-scheduler='" + tokyo + "'] td:nth-of-type(4)"))
                .as("the next run in the scheduler's own time zone").contains("09:00:00").contains("GMT+9");
        given().auth().preemptive().basic("admin", "admin").delete("/admin/schedulers/" + tokyo).then().statusCode(200);

        clickNow("button[aria-label='Pause scheduler " + id + "']");
        await().atMost(BROWSER_STEP).until(() -> textOf(row).contains("paused"));
        clickNow("button[aria-label='Run now scheduler " + id + "']");
        await("its job ran").atMost(BROWSER_STEP).until(() -> textOf(row).contains("(completed)"));
        assertThat(text("message")).startsWith("Job " + id + ":").endsWith(" added.");
        assertThat(textOf(row + " td:nth-of-type(5)")).as("its jobs, the run-now one included").isEqualTo("1");
        browser().findElement(By.cssSelector("#queue option[value='" + researchQueue + "']")).click();
        browser().findElement(By.cssSelector("input[name=state][value=completed]")).click();
        await("the job shows its schedule in the list").atMost(BROWSER_STEP).until(() -> String.valueOf(browser()
                .executeScript("return [...document.querySelectorAll('#jobs .job-schedule')].map(s => s.textContent)"
                        + ".join('|')")).contains("scheduled by " + id));

        clickNow("button[aria-label='Remove scheduler " + id + "']");
        await().atMost(BROWSER_STEP).ignoreExceptions().until(() -> {
            browser().switchTo().alert().accept();
            return true;
        });
        await().atMost(BROWSER_STEP).until(() -> browser().findElements(By.cssSelector(row)).isEmpty());
        assertThat(text("error")).isEmpty();
    }

    @Test
    void operatorSetsATenantsWeightAndQuotaInTheTenantsViewAndResetsIt() {
        String id = "console-tenant-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        browser().get(base.toString().replace("://", "://admin:admin@") + "admin/");
        await("the console is loaded").atMost(BROWSER_STEP).until(() -> !text("feed-state").equals("connecting"));

        browser().findElement(By.id("tenant-id")).sendKeys(id);
        browser().findElement(By.id("tenant-weight")).sendKeys(Keys.chord(Keys.CONTROL, "a"), "2");
        browser().findElement(By.id("tenant-concurrency")).sendKeys("3");
        browser().findElement(By.id("tenant-quota")).sendKeys("5000");
        browser().findElement(By.cssSelector("#tenant-period option[value=month]")).click();
        browser().findElement(By.id("save-tenant")).click();

        String row = "#tenants tr[data-tenant='" + id + "']";
        await("the tenant is listed").atMost(BROWSER_STEP).until(() -> !textOf(row).isEmpty());
        assertThat(textOf(row + " td:nth-of-type(1)")).as("its weight").isEqualTo("2");
        assertThat(textOf(row + " td:nth-of-type(2)")).as("its concurrency").isEqualTo("3");
        assertThat(textOf(row + " td:nth-of-type(3)")).as("no rate limit").isEqualTo("no limit");
        assertThat(textOf(row + " td:nth-of-type(4)")).isEqualTo("5,000 tokens a month");
        assertThat(text("message")).isEqualTo("Tenant " + id + ": weight 2, at most 3 running, quota 5,000 tokens a month.");
        given().auth().preemptive().basic("admin", "admin").get("/admin/tenants/" + id).then().statusCode(200)
                .body("weight", org.hamcrest.Matchers.equalTo(2)).body("concurrency", org.hamcrest.Matchers.equalTo(3))
                .body("tokenQuota.period",
                        org.hamcrest.Matchers.equalTo("month"));

        clickNow("button[aria-label='Reset tenant " + id + "']");
        await().atMost(BROWSER_STEP).ignoreExceptions().until(() -> {
            browser().switchTo().alert().accept();
            return true;
        });
        await("back to the defaults").atMost(BROWSER_STEP).until(() -> browser().findElements(By.cssSelector(row))
                .isEmpty());
        assertThat(text("error")).isEmpty();
    }

    @Test
    void operatorSeesTheFleetWaitForAnLlmServerThatIsDownAndCallsGoAgain() {
        BudgetKey key = new BudgetKey("http://llm.test/v1/chat/completions", "console-model");
        llmBudgets.register(key).await().atMost(TIMEOUT);
        llmBudget.open(key, "a-failed-call", Duration.ofMinutes(5), Duration.ofMinutes(5)).await().atMost(TIMEOUT);
        browser().get(base.toString().replace("://", "://admin:admin@") + "admin/");

        String row = "#llm-budgets tr[data-model='console-model']";
        await("the budget is listed").atMost(BROWSER_STEP).until(() -> !textOf(row).isEmpty());
        assertThat(textOf(row + " td:nth-of-type(1)")).isEqualTo(key.endpoint());
        assertThat(textOf(row + " td:nth-of-type(2)")).isEqualTo("no limit");
        assertThat(textOf(row + " td:nth-of-type(5)")).as("why calls wait, and until when")
                .startsWith("down: circuit open, next probe at ").contains("unavailable for ");

        llmBudget.close(key).await().atMost(TIMEOUT);
        await("calls go again").atMost(BROWSER_STEP).until(() -> textOf(row + " td:nth-of-type(5)").equals("calls go"));
        assertThat(text("error")).isEmpty();
    }

    @Test
    void theResearchPageAndTheConsoleHaveAFavicon() {
        given().get("/favicon.svg").then().statusCode(200).contentType("image/svg+xml");
        given().get("/").then().statusCode(200).body(containsString("<link rel=\"icon\" href=\"/favicon.svg\""));
        given().auth().preemptive().basic("admin", "admin").get("/admin/console/").then().statusCode(200)
                .body(containsString("<link rel=\"icon\" href=\"/favicon.svg\""));
    }

    @Test
    void consoleNeedsTheOperatorsCredentials() {
        given().get("/admin/console/").then().statusCode(401);
        given().get("/admin/console/console.js").then().statusCode(401);
        given().auth().preemptive().basic("admin", "admin").get("/admin/console/").then().statusCode(200)
                .contentType(ContentType.HTML);
        given().auth().preemptive().basic("admin", "admin").accept("text/html").redirects().follow(false)
                .get("/admin").then().statusCode(303).header("Location", endsWith("/admin/console/"));
        given().auth().preemptive().basic("admin", "admin").get("/admin").then().statusCode(200)
                .contentType(ContentType.JSON);
    }

    /**
     * Clicks the element a CSS selector finds, found and clicked at once (the console re-renders its tables), right
     * after the script returns (so that a confirmation it opens does not interrupt the script).
     */
    private void clickNow(String selector) {
        browser().executeScript("const e = document.querySelector(arguments[0]); setTimeout(() => e.click(), 0)",
                selector);
    }

    /** @return the text of the element a CSS selector finds, read at once (the console re-renders its tables) */
    private String textOf(String selector) {
        return String.valueOf(browser().executeScript(
                "const e = document.querySelector(arguments[0]); return e ? e.textContent : ''", selector));
    }

    private String text(String id) {
        return String.valueOf(browser().executeScript("return document.getElementById(arguments[0]).textContent", id));
    }

    private String value(String id) {
        return String.valueOf(browser().executeScript("return document.getElementById(arguments[0]).value", id));
    }

    private static ChromeDriver browser() {
        return CHROMIUM.driver();
    }
}
