package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** {@code /admin/schedulers}: create, change, list, read, pause, resume, run now, remove; bad specs name their field. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminSchedulersTest extends QueueTestSupport {

    @Inject
    ResearchConfig research;

    @Test
    void managesASchedulerAndItsJobsCarryItsIdAndTick() {
        workers.start(ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done")),
                TestWorkers.options("w").build());
        String id = "nightly-" + UUID.randomUUID().toString().substring(0, 8);
        String path = "/admin/schedulers/" + id;

        long next = admin().contentType(ContentType.JSON).body(Map.of("pattern", "0 3 * * *", "tz", "Europe/Berlin",
                "missed", "run-once", "template", Map.of("queue", queue.name(), "name", "report",
                        "data", Map.of("region", "north"), "options", Map.of("attempts", 3))))
                .put(path).then().statusCode(200).body("id", equalTo(id)).body("queue", equalTo(queue.name()))
                .body("pattern", equalTo("0 3 * * *")).body("tz", equalTo("Europe/Berlin")).body("paused", equalTo(false))
                .body("nextAt", matchesPattern("\\d{4}-\\d{2}-\\d{2}T03:00:00\\+0[12]:00"))
                .body("ticks", equalTo(0)).body("missed", equalTo("run-once")).body("template.options.attempts", equalTo(3))
                .extract().jsonPath().getLong("next");
        admin().get("/admin/schedulers").then().statusCode(200).body("id", hasItem(id));
        admin().get(path).then().statusCode(200).body("next", equalTo(next));

        admin().post(path + "/pause").then().statusCode(200).body("paused", equalTo(true)).body("next", nullValue());
        admin().post(path + "/resume").then().statusCode(200).body("paused", equalTo(false)).body("next", equalTo(next));
        String jobId = admin().post(path + "/run-now").then().statusCode(200).body("jobId", startsWith(id + ":"))
                .extract().path("jobId");
        await().atMost(TIMEOUT).until(() -> redis.job(queue, jobId).state() == JobState.COMPLETED);
        long tick = Long.parseLong(jobId.substring(id.length() + 1));
        admin().get("/admin/queues/" + queue.name() + "/jobs/" + jobId).then().statusCode(200)
                .body("schedulerId", equalTo(id)).body("tick", equalTo(tick)).body("attempts", equalTo(3));
        admin().get(path).then().body("lastJobId", equalTo(jobId)).body("lastJobState", equalTo("completed"))
                .body("ticks", equalTo(0));

        admin().contentType(ContentType.JSON).body(Map.of("every", 60_000, "template", Map.of("queue", queue.name(),
                "name", "report"))).put(path).then().statusCode(200).body("every", equalTo(60_000))
                .body("pattern", nullValue()).body("next", greaterThan(tick));

        admin().delete(path).then().statusCode(200).body("removed", equalTo(true));
        admin().get(path).then().statusCode(404);
        admin().delete(path).then().statusCode(404);
        admin().post(path + "/run-now").then().statusCode(404);
    }

    /** A research job's template that names no options gets those of {@code POST /research/start}, not one attempt. */
    @Test
    void aResearchTemplateWithoutOptionsGetsTheOptionsOfAStartedResearchJob() {
        String path = "/admin/schedulers/research-" + UUID.randomUUID().toString().substring(0, 8);
        admin().contentType(ContentType.JSON).body(Map.of("pattern", "0 3 1 1 *", "template", Map.of("queue",
                research.queue(), "name", "research", "data", Map.of("query", "what changed this year?"))))
                .put(path).then().statusCode(200).body("template.options.attempts", equalTo(research.attempts().max()));
        admin().contentType(ContentType.JSON).body(Map.of("pattern", "0 3 1 1 *", "template", Map.of("queue",
                research.queue(), "name", "research", "data", Map.of("query", "what changed this year?"),
                "options", Map.of("attempts", 1))))
                .put(path).then().statusCode(200).body("template.options.attempts", equalTo(1));
        admin().delete(path).then().statusCode(200);
    }

    @Test
    void refusesABadSchedulerNamingTheField() {
        workers.start(ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done")),
                TestWorkers.options("w").build());
        Map<String, Object> template = Map.of("queue", queue.name(), "name", "report");
        List<Map.Entry<Map<String, Object>, String>> cases = List.of(
                Map.entry(Map.of("pattern", "61 * * * *", "template", template), "pattern"),
                Map.entry(Map.of("pattern", "* * * *", "template", template), "pattern"),
                Map.entry(Map.of("pattern", "0 3 * * *", "tz", "Mars/Olympus", "template", template), "tz"),
                Map.entry(Map.of("every", 0, "template", template), "every"),
                Map.entry(Map.of("every", 1000, "pattern", "* * * * *", "template", template), "pattern"),
                Map.entry(Map.of("every", 1000, "startDate", "tomorrow", "template", template), "startDate"),
                Map.entry(Map.of("every", 1000, "missed", "sometimes", "template", template), "missed"),
                Map.entry(Map.of("every", 1000, "template", Map.of("queue", "nobody-serves-this", "name", "x")),
                        "template.queue"),
                Map.entry(Map.of("every", 1000, "template", Map.of("queue", queue.name(), "name", "x",
                        "options", Map.of("attempts", 0))), "template.options.attempts"),
                Map.entry(Map.of("every", 10, "template", template), "every"),
                Map.entry(Map.of("pattern", "0 0 31 2 *", "template", template), "pattern"),
                Map.entry(Map.of("pattern", "0 3 * * *", "endDate", "2020-01-01T00:00:00Z", "template", template),
                        "endDate"),
                Map.entry(Map.of("every", 60_000, "template", Map.of("queue", "notifications", "name", "fan-out",
                        "data", Map.of("channel", "news", "message", "weekly"))), "template.data.chunkSize"),
                Map.entry(Map.of("every", 60_000, "template", Map.of("queue", "deep-research", "name", "research",
                        "data", Map.of("qeury", "the week"))), "template.data.qeury"),
                Map.entry(Map.of("every", 60_000, "template", Map.of("queue", "deep-research", "name", "research")),
                        "template.data.query"));
        for (Map.Entry<Map<String, Object>, String> bad : cases) {
            admin().contentType(ContentType.JSON).body(bad.getKey()).put("/admin/schedulers/bad").then()
                    .statusCode(400).body("error", equalTo("bad_request")).body("field", equalTo(bad.getValue()))
                    .body("message", containsString("`" + bad.getValue() + "`"));
        }
        admin().contentType(ContentType.JSON).body(Map.of("every", 999, "template", template))
                .put("/admin/schedulers/bad").then().statusCode(400)
                .body("message", startsWith("`every` must be at least 1000 ms"));
        admin().get("/admin/schedulers/bad").then().statusCode(404);
    }

    /** A time zone and the dates are shown as they were given, and the next tick in the scheduler's own zone. */
    @Test
    void showsTheTimeZoneAndDatesAsGiven() {
        workers.start(ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done")),
                TestWorkers.options("w").build());
        String path = "/admin/schedulers/tz-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> template = Map.of("queue", queue.name(), "name", "report");
        admin().contentType(ContentType.JSON).body(Map.of("pattern", "0 9 * * *", "tz", "Europe/Berlin",
                "startDate", "2030-01-01T09:00:00+01:00", "endDate", "2031-06-30T18:00:00+02:00", "template", template))
                .put(path).then().statusCode(200).body("tz", equalTo("Europe/Berlin"))
                .body("startDate", equalTo("2030-01-01T09:00:00+01:00")).body("endDate", equalTo("2031-06-30T18:00:00+02:00"))
                .body("nextAt", equalTo("2030-01-01T09:00:00+01:00"));
        admin().get(path).then().body("tz", equalTo("Europe/Berlin")).body("startDate", equalTo("2030-01-01T09:00:00+01:00"));
        admin().contentType(ContentType.JSON).body(Map.of("pattern", "0 9 * * *", "startDate", "2030-01-01T00:00:00Z",
                "template", template)).put(path).then().statusCode(200).body("tz", equalTo("UTC"))
                .body("nextAt", equalTo("2030-01-01T09:00:00Z"));
        admin().delete(path).then().statusCode(200);
    }
}
