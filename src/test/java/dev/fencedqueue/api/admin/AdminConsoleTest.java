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

import dev.fencedqueue.archive.Archiver;
import dev.fencedqueue.llm.budget.BudgetKey;
import dev.fencedqueue.llm.budget.LlmBudget;
import dev.fencedqueue.llm.budget.LlmBudgets;
import dev.fencedqueue.testing.ChromiumExtension;
import dev.fencedqueue.testing.HeadlessChromium.Shot;
import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SwitchableConfig;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The operator console ({@code /admin/}) in a real headless Chromium, signed in with HTTP Basic. It opens on the jobs of
 * the queue with work (a running research job, not the idle fan-out queue); each view and each job's detail has its
 * own address, which a reload opens again and the back button leaves. An operator watches a 100,000-subscriber
 * fan-out's progress bar move live, aborts it (it stops at a chunk boundary with its cursor kept), removes its throttle
 * (the form shows the current one) and resumes it, and it finishes with every subscriber notified exactly once. A
 * research job's detail shows its question and answer, no fan-out fields, and only the actions its state allows; once
 * archived it is listed with the completed jobs and opens from the archive, with no action. Screenshots:
 * {@code docs/screenshots/admin-console*.png}.
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

    @jakarta.inject.Inject
    Archiver archiver;

    @jakarta.inject.Inject
    SwitchableConfig settings;

    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "fq.research.queue")
    String researchQueue;

    @AfterEach
    void settingsBack() {
        settings.endOfTest();
    }

    @Test
    void opensOnTheQueueWithWorkAndAJobsDetailHasItsOwnAddressThatAReloadOpensAgain() {
        // A research job that runs for a minute: the fan-out queue (listed as chunked) has nothing to do.
        settings.adjust("fq.simulator.research.steps", "400");
        String jobId = startResearch("How do fencing tokens stop a paused worker's writes?");
        String other = startResearch("Compare Redis Streams with Kafka for a job's events");
        await("the research jobs run").atMost(TIMEOUT).until(() -> "active".equals(status(jobId))
                && "active".equals(status(other)));

        openConsole();
        await("the console opens on the research queue's running jobs").atMost(BROWSER_STEP).until(() -> browser()
                .getCurrentUrl().endsWith("/admin/console/#/queues/" + researchQueue + "/jobs?state=active"));
        String row = "#jobs tr[data-job-id='" + jobId + "']";
        await("the job is listed").atMost(BROWSER_STEP).until(() -> !textOf(row).isEmpty());
        assertThat(textOf(row + " .job-link")).isEqualTo("How do fencing tokens stop a paused worker's writes?");
        assertThat(textOf("#states a[aria-current='page']")).startsWith("Running");
        assertThat(displayed("no-jobs")).as("never 'No job in this state' while one runs").isFalse();
        await("both listed").atMost(BROWSER_STEP).until(() -> !textOf("#jobs tr[data-job-id='" + other + "']").isEmpty());
        CHROMIUM.screenshot("admin-console-jobs", new Shot(1280, 380, false));

        clickNow(row + " .job-link");
        await("the job's detail, on its own address").atMost(BROWSER_STEP).until(() -> browser().getCurrentUrl()
                .endsWith("#/queues/" + researchQueue + "/jobs/" + jobId) && "active".equals(state()));
        assertResearchDetailWithoutBulkFields("How do fencing tokens stop a paused worker's writes?");
        assertThat(shownActions()).as("a running job can be aborted, nothing else").isEqualTo("Abort");

        browser().navigate().refresh();
        await("a reload opens the same job").atMost(BROWSER_STEP).until(() -> jobId.equals(text("detail-id"))
                && "active".equals(state()) && displayed("view-job"));
        browser().navigate().back();
        await("back to the list").atMost(BROWSER_STEP).until(() -> displayed("view-jobs") && !textOf(row).isEmpty());
        browser().navigate().forward();
        await().atMost(BROWSER_STEP).until(() -> displayed("view-job") && "active".equals(state()));

        browser().findElement(By.id("abort")).click();
        browser().switchTo().alert().accept();
        await("aborted").atMost(BROWSER_STEP).until(() -> "aborted".equals(state()));
        assertThat(text("detail-state")).isEqualTo("aborted");
        assertThat(shownActions()).as("an aborted research job can only be deleted").isEqualTo("Delete");
        assertThat(text("message")).isEqualTo("Job " + jobId + " aborted.");
        assertThat(text("error")).isEmpty();
        given().post("/research/abort/" + other).then().statusCode(200);
    }

    @Test
    void aFinishedResearchJobShowsItsAnswerAndOnceArchivedIsListedAndOpensFromTheArchiveWithNoAction() {
        String jobId = startResearch("Why do queues keep finished jobs elsewhere?");
        await("the research job completes").atMost(TIMEOUT).until(() -> "completed".equals(status(jobId)));

        openConsole("#/queues/" + researchQueue + "/jobs/" + jobId);
        await("its detail").atMost(BROWSER_STEP).until(() -> "completed".equals(state()));
        assertResearchDetailWithoutBulkFields("Why do queues keep finished jobs elsewhere?");
        assertThat(text("detail-answer")).as("its answer").contains("Why do queues keep finished jobs elsewhere?");
        assertThat(shownActions()).as("a completed job can only be deleted").isEqualTo("Delete");
        assertThat(displayed("detail-archived")).isFalse();

        assertThat(archiver.round(Duration.ZERO).await().atMost(TIMEOUT)).as("jobs archived").isPositive();
        given().auth().preemptive().basic("admin", "admin").get("/admin/queues/" + researchQueue + "/jobs/" + jobId)
                .then().statusCode(200).body("archived", org.hamcrest.Matchers.equalTo(true));

        clickNow("#states a[data-state='completed']");
        String row = "#jobs tr[data-job-id='" + jobId + "']";
        await("listed with the completed jobs, from the archive").atMost(BROWSER_STEP).until(() -> browser()
                .getCurrentUrl().endsWith("jobs?state=completed") && textOf(row + " .badge").equals("archived"));
        assertThat(textOf("#jobs-caption")).contains("in the archive");
        clickNow(row + " .job-link");
        await("its detail, from the archive").atMost(BROWSER_STEP).until(() -> displayed("view-job")
                && displayed("detail-archived") && "completed".equals(state()));
        assertResearchDetailWithoutBulkFields("Why do queues keep finished jobs elsewhere?");
        assertThat(text("detail-answer")).contains("Why do queues keep finished jobs elsewhere?");
        assertThat(shownActions()).as("no action applies to an archived job").isEmpty();
        assertThat(text("no-actions")).contains("archive");
        await("its events, from the archive").atMost(BROWSER_STEP).until(() -> text("detail-events").contains("completed"));
        CHROMIUM.screenshot("admin-console-research-job", new Shot(1280, 600, false));

        clickNow("#nav-queues");
        String queueRow = "#queues tr[data-queue='" + researchQueue + "']";
        await("the Queues view counts the archived jobs").atMost(BROWSER_STEP).until(() -> textOf(queueRow
                + " td:nth-of-type(5)").contains("archived"));
        assertThat(textOf("#nav-queues")).isEqualTo("Queues");
        CHROMIUM.screenshot("admin-console-queues", new Shot(1280, 320, false));
        assertThat(text("error")).isEmpty();
    }

    @Test
    void operatorWatchesAbortsThrottlesAndResumesAFanOutThatEndsExactlyOnce() throws Exception {
        String channel = rows.channelWith(SUBSCRIBERS);
        String jobId = given().contentType(ContentType.JSON).body(Map.of("message", "console", "chunkSize", 500,
                "throttle", Map.of("pauseBetweenChunksMs", 150))).post("/notifications/channels/" + channel + "/fan-out")
                .then().statusCode(202).extract().path("jobId");

        openConsole("#/queues/notifications/jobs?state=active");
        await("the fan-out is listed as running").atMost(BROWSER_STEP).until(() -> Boolean.TRUE.equals(browser()
                .executeScript("return document.querySelector(`#jobs tr[data-job-id='${arguments[0]}']`) !== null", jobId)));
        Set<String> seen = new HashSet<>();
        await("its progress bar moves live").atMost(BROWSER_STEP).until(() -> {
            seen.add(String.valueOf(browser().executeScript(
                    "return document.querySelector(`#jobs progress[data-job-id='${arguments[0]}']`).value", jobId)));
            return seen.size() >= 3;
        });

        clickNow("#jobs tr[data-job-id='" + jobId + "'] .job-link");
        await().atMost(BROWSER_STEP).until(() -> "active".equals(state()) && !text("detail-events").isEmpty());
        assertThat(displayed("detail-bulk")).isTrue();
        assertThat(displayed("detail-research")).isFalse();
        long firstEpoch = Long.parseLong(text("detail-token"));
        assertThat(firstEpoch).isPositive();
        await("the throttle form shows the job's throttle").atMost(BROWSER_STEP).until(() -> "150".equals(
                value("pause-ms")));
        assertThat(value("max-rate")).as("no rate limit").isEmpty();
        CHROMIUM.screenshot("admin-console", new Shot(1280, 640, false));

        browser().findElement(By.id("abort")).click();
        browser().switchTo().alert().accept();
        await("stopped at a chunk boundary").atMost(BROWSER_STEP).until(() -> "aborted".equals(state()));
        long itemsDone = Long.parseLong(text("detail-items").split(" ")[0]);
        assertThat(itemsDone).isPositive().isLessThan(SUBSCRIBERS);
        assertThat(itemsDone % 500).as("a whole number of chunks").isZero();
        assertThat(text("detail-cursor")).isEqualTo(String.format("s-%06d", itemsDone - 1));
        assertThat(rows.rows("notification", jobId)).as("rows = the cursor's items").isEqualTo(itemsDone);
        assertThat(text("message")).contains("stops at its next chunk boundary");
        assertThat(shownActions()).as("an aborted fan-out can be resumed or deleted").isEqualTo("Resume Delete");

        // Typed as an operator types, the field keeping the focus (WebDriver's clear() gives it up, and the console's
        // refresh would then fill the job's throttle back in before the new value is typed).
        browser().findElement(By.id("pause-ms")).sendKeys(Keys.chord(Keys.CONTROL, "a"), "0");
        browser().findElement(By.id("set-throttle")).click();
        await().atMost(BROWSER_STEP).until(() -> text("detail-throttle").startsWith("pause 0 ms"));

        browser().findElement(By.id("resume")).click();
        await("the resumed fan-out finishes").atMost(Duration.ofMinutes(3)).until(() -> "completed".equals(state()));
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

        openConsole("#/queues/" + researchQueue + "/jobs?state=waiting-children");
        String parentRow = "#jobs tr[data-job-id='" + flowId + "']";
        await("the parent is listed as waiting for its children").atMost(BROWSER_STEP).until(() -> !textOf(parentRow)
                .isEmpty());
        clickNow(parentRow + " .job-link");
        await().atMost(BROWSER_STEP).until(() -> "waiting-children".equals(state())
                && text("detail-children").contains(flowId + ":south"));
        assertThat(text("detail-children")).contains(flowId + ":north in " + childQueue + ", waiting (waited for)");
        assertThat(displayed("detail-parent")).as("a parent is part of no flow").isFalse();

        clickNow("#detail-children a[aria-label='Show job " + flowId + ":north of queue " + childQueue + "']");
        await("the child's detail, with its parent").atMost(BROWSER_STEP).until(() -> text("detail-id").equals(flowId
                + ":north") && text("detail-parent").equals(flowId + " (" + researchQueue + ")"));
        assertThat(state()).isEqualTo("waiting");
        assertThat(browser().getCurrentUrl()).endsWith("#/queues/" + childQueue + "/jobs/" + flowId + "%3Anorth");
        clickNow("#detail-parent a");
        await("back to the parent").atMost(BROWSER_STEP).until(() -> text("detail-id").equals(flowId));
        assertThat(text("error")).isEmpty();

        given().auth().preemptive().basic("admin", "admin").post("/admin/queues/" + researchQueue + "/jobs/" + flowId
                + "/abort").then().statusCode(200);
        given().auth().preemptive().basic("admin", "admin").get("/admin/queues/" + childQueue + "/jobs/" + flowId
                + ":north").then().statusCode(200).body("state", org.hamcrest.Matchers.equalTo("aborted"));

        // A job that ended without running (no progress) shows no running bar, but why it ended.
        browser().get(base + "admin/console/#/queues/" + researchQueue + "/jobs?state=failed");
        // The row may first come from the queue's live feed; the listing's next refresh fills in why it ended.
        await("the parent is listed as failed or aborted, with why").atMost(BROWSER_STEP)
                .until(() -> !textOf(parentRow).isEmpty() && !textOf(parentRow + " .job-progress").isEmpty());
        assertThat(browser().executeScript("const bar = document.querySelector(arguments[0] + ' progress'); "
                + "return bar.checkVisibility() && bar.position === -1", parentRow)).as("no running bar").isEqualTo(false);
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

        openConsole("#/schedules");
        String row = "#schedules tr[data-scheduler='" + id + "']";
        await("the scheduler is listed").atMost(BROWSER_STEP).until(() -> !browser().findElements(By.cssSelector(row))
                .isEmpty() && !textOf("#schedules tr[data-scheduler='" + tokyo + "']").isEmpty());
        assertThat(textOf(row)).contains("every 1 h").contains(researchQueue).doesNotContain("paused");
        assertThat(textOf("#schedules tr[data-scheduler='" + tokyo + "'] td:nth-of-type(4)"))
                .as("the next run in the scheduler's own time zone").contains("09:00:00").contains("GMT+9");
        given().auth().preemptive().basic("admin", "admin").delete("/admin/schedulers/" + tokyo).then().statusCode(200);

        clickNow("button[aria-label='Pause scheduler " + id + "']");
        await().atMost(BROWSER_STEP).until(() -> textOf(row).contains("paused"));
        clickNow("button[aria-label='Run now scheduler " + id + "']");
        await("its job ran").atMost(BROWSER_STEP).until(() -> textOf(row).contains("(completed)"));
        assertThat(text("message")).startsWith("Job " + id + ":").endsWith(" added.");
        assertThat(textOf(row + " td:nth-of-type(5)")).as("its jobs, the run-now one included").isEqualTo("1");
        CHROMIUM.screenshot("admin-console-schedules", new Shot(1280, 380, false));
        clickNow(row + " td:nth-of-type(6) a");
        await("its last job's detail shows its schedule").atMost(BROWSER_STEP).until(() -> displayed("view-job")
                && text("detail-schedule").startsWith(id + ", tick "));
        clickNow("#detail-back");
        await("the job shows its schedule in the list").atMost(BROWSER_STEP).until(() -> String.valueOf(browser()
                .executeScript("return [...document.querySelectorAll('#jobs .job-schedule')].map(s => s.textContent)"
                        + ".join('|')")).contains("scheduled by " + id));
        clickNow("#nav-schedules");
        await().atMost(BROWSER_STEP).until(() -> displayed("view-schedules") && !textOf(row).isEmpty());

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
        openConsole("#/tenants");
        await("the Tenants view").atMost(BROWSER_STEP).until(() -> displayed("view-tenants"));

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
        openConsole("#/llm-budgets");

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

    /** A list shows the start of a model's answer as text, not as the Markdown it was written in. */
    @Test
    void aListShowsTheStartOfAnAnswerAsTextNotMarkdown() {
        openConsole();
        Object line = browser().executeAsyncScript("const done = arguments[arguments.length - 1]; "
                + "import('./kinds.js').then(kinds => done(kinds.outcome({state: 'completed', result: {text: "
                + "'## Research report: heat pumps\\n\\n**Summary.** See [the study](https://example.org) and `COP`.'}})))"
                + ".catch(e => done('failed: ' + e))");
        assertThat(line).isEqualTo("Research report: heat pumps Summary. See the study and COP.");
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
     * Opens the console as an operator types its address: through {@code /admin/}'s redirect, with the credentials in
     * the address (the console's own address carries none, which Chromium would refuse to send requests from), then,
     * when given, one of its views by its address.
     *
     * @param route a console address ({@code #/schedules}), or none for where the console opens by itself
     */
    private void openConsole(String... route) {
        browser().get(base.toString().replace("://", "://admin:admin@") + "admin/");
        await("the console is loaded").atMost(BROWSER_STEP).until(() -> browser().getCurrentUrl().contains(
                "/admin/console/#/"));
        if (route.length > 0) {
            browser().get(base + "admin/console/" + route[0]);
        }
    }

    private String startResearch(String query) {
        return given().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start").then()
                .statusCode(202).extract().path("jobId");
    }

    private String status(String jobId) {
        return given().get("/research/status/" + jobId).then().extract().path("state");
    }

    /** Checks that the job view shows a research job: its question, and none of a fan-out's fields. */
    private void assertResearchDetailWithoutBulkFields(String question) {
        assertThat(displayed("detail-research")).isTrue();
        assertThat(text("detail-question")).isEqualTo(question);
        assertThat(displayed("detail-bulk")).as("no cursor, items or chunks").isFalse();
        assertThat(displayed("detail-generic")).isFalse();
        assertThat(String.valueOf(browser().executeScript("return document.getElementById('view-job').innerText")))
                .doesNotContain("Cursor").doesNotContain("Items done").doesNotContain("Chunks done");
    }

    /** @return the job view's state as the API names it ({@code active}, {@code completed} ...) */
    private String state() {
        return String.valueOf(browser().executeScript("return document.getElementById('detail-state').dataset.state"));
    }

    /** @return the job view's action buttons an operator sees, in order, e.g. {@code "Resume Delete"} */
    private String shownActions() {
        return String.valueOf(browser().executeScript("return [...document.querySelectorAll('#detail-actions button')]"
                + ".filter(b => b.checkVisibility()).map(b => b.textContent).join(' ')"));
    }

    private boolean displayed(String id) {
        return Boolean.TRUE.equals(browser().executeScript("return document.getElementById(arguments[0]).checkVisibility()",
                id));
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
