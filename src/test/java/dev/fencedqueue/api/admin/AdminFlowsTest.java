package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.flow.FlowReader;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.UnrecoverableJobException;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** {@code POST /admin/flows}, and a flow's tree in the job views: a parent's children, a child's parent. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminFlowsTest extends QueueTestSupport {

    @Inject
    Queues queues;

    @Inject
    FlowReader reader;

    @Test
    void addsAFlowOverHttpAndShowsItsTreeInTheJobViews() {
        JobQueue other = redis.freshQueue();
        ProbeProcessor held = ProbeProcessor.held(other.name());
        workers.start(held, TestWorkers.options("held").build());
        Map<String, Object> flow = Map.of("queue", queue.name(), "name", "report",
                "options", Map.of("jobId", "weekly", "attempts", 2),
                "children", List.of(Map.of("queue", other.name(), "name", "part", "key", "north", "data", Map.of("n", 1)),
                        Map.of("queue", other.name(), "name", "part", "key", "south", "policy", "ignore")));

        admin().contentType(ContentType.JSON).body(flow).post("/admin/flows").then().statusCode(201)
                .header("Location", containsString("/admin/queues/" + queue.name() + "/jobs/weekly"))
                .body("jobId", equalTo("weekly")).body("queue", equalTo(queue.name()))
                .body("children.jobId", hasItems("weekly:north", "weekly:south"))
                .body("warnings", contains(startsWith("no instance of this service serves queue `" + queue.name() + "`")));

        admin().get("/admin/queues/" + queue.name() + "/jobs/weekly").then().statusCode(200)
                .body("state", equalTo("waiting-children")).body("attempts", equalTo(2))
                .body("children.jobId", hasItems("weekly:north", "weekly:south"))
                .body("children.find { it.jobId == 'weekly:north' }.queue", equalTo(other.name()))
                .body("children.find { it.jobId == 'weekly:north' }.pending", equalTo(true));
        admin().get("/admin/queues/" + queue.name() + "/jobs?state=waiting-children").then().statusCode(200)
                .body("total", equalTo(1)).body("jobs[0].jobId", equalTo("weekly"));
        admin().get("/admin/queues/" + queue.name()).then().statusCode(200).body("counts.waiting-children", equalTo(1));

        for (int i = 0; i < 2; i++) {
            ProbeProcessor.Attempt part = awaitAttempt(held, i);
            if (part.context().jobId().equals("weekly:north")) {
                part.complete("north done");
            } else {
                part.fail(new UnrecoverableJobException("south broke"));
            }
        }
        await().atMost(TIMEOUT).until(() -> redis.job(queue, "weekly").state() == JobState.WAITING);

        admin().get("/admin/queues/" + queue.name() + "/jobs/weekly").then().statusCode(200)
                .body("state", equalTo("waiting"))
                .body("children.find { it.jobId == 'weekly:north' }.result", equalTo("north done"))
                .body("children.find { it.jobId == 'weekly:north' }.state", equalTo("completed"))
                .body("children.find { it.jobId == 'weekly:south' }.failedReason", equalTo("south broke"));
        admin().get("/admin/queues/" + other.name() + "/jobs/weekly:north").then().statusCode(200)
                .body("parentId", equalTo("weekly")).body("parentQueue", equalTo(queue.name()));
        assertThat(reader.failedChildren(queue.keys(), "weekly").await().atMost(TIMEOUT)).containsOnlyKeys(
                other.keys().job("weekly:south"));
    }

    /** Nothing is lost: the flow is accepted, but the operator is told, and the queue list shows the queue unserved. */
    @Test
    void acceptsAFlowOnAQueueNothingServesWithAWarningAndListsTheQueueAsUnserved() {
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue.name(), "name", "report",
                "options", Map.of("jobId", "lonely"))).post("/admin/flows").then().statusCode(201)
                .body("jobId", equalTo("lonely"))
                .body("warnings", contains("no instance of this service serves queue `" + queue.name() + "`: its jobs "
                        + "wait until a worker for it starts (queues served: deep-research, notifications)"));

        admin().get("/admin/queues").then().statusCode(200)
                .body("find { it.queue == '" + queue.name() + "' }.served", equalTo(false))
                .body("find { it.queue == '" + queue.name() + "' }.counts.waiting", equalTo(1))
                .body("find { it.queue == 'deep-research' }.served", equalTo(true));
        admin().get("/admin/queues/" + queue.name()).then().statusCode(200).body("served", equalTo(false));

        workers.start(ProbeProcessor.of(queue.name(), context -> io.smallrye.mutiny.Uni.createFrom().item("done")),
                TestWorkers.options("late").build());
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue.name(), "name", "report"))
                .post("/admin/flows").then().statusCode(201).body("warnings", nullValue());
        admin().get("/admin/queues").then().body("findAll { it.queue == '" + queue.name() + "' }.served",
                contains(true));
    }

    /** A job's data is checked as the endpoint that adds such jobs checks it, naming the field by its path. */
    @Test
    void refusesAFlowWhoseDataItsProcessorCannotReadNamingTheField() {
        String root = "flow-" + queue.name();
        Map<String, Object> children = Map.of("queue", "deep-research", "name", "research", "data",
                Map.of("query", "the north"));
        List<Map.Entry<Map<String, Object>, String>> cases = List.of(
                Map.entry(Map.of("queue", "deep-research", "name", "deep-research", "options", Map.of("jobId", root)),
                        "data.query"),
                Map.entry(Map.of("queue", "deep-research", "name", "research", "data", Map.of("query", "x", "mode", "wide"),
                        "options", Map.of("jobId", root)), "data.mode"),
                Map.entry(Map.of("queue", "deep-research", "name", "report", "options", Map.of("jobId", root),
                        "data", Map.of("query", "all"), "children", List.of(children,
                                Map.of("queue", "deep-research", "name", "research", "data", Map.of("qeury", "south")))),
                        "children[1].data.qeury"),
                Map.entry(Map.of("queue", "deep-research", "name", "report", "options", Map.of("jobId", root),
                        "data", Map.of("query", "all"), "children", List.of(Map.of("queue", "deep-research",
                                "name", "research", "data", "the south"))), "children[0].data"),
                Map.entry(Map.of("queue", queue.name(), "name", "report", "options", Map.of("jobId", root),
                        "children", List.of(Map.of("queue", "notifications", "name", "fan-out", "data",
                                Map.of("channel", "news", "message", "hi"))), "data", Map.of()),
                        "children[0].data.chunkSize"));
        for (Map.Entry<Map<String, Object>, String> bad : cases) {
            admin().contentType(ContentType.JSON).body(bad.getKey()).post("/admin/flows").then().statusCode(400)
                    .body("error", equalTo("bad_request")).body("field", equalTo(bad.getValue()))
                    .body("message", startsWith("`" + bad.getValue() + "`"));
        }
        admin().get("/admin/queues/deep-research/jobs/" + root).then().statusCode(404);
        assertThat(redis.keys(queue)).as("nothing written").isEmpty();
    }

    /** A job added from Java is not checked: its processor fails it with a reason in the product's words. */
    @Test
    void aResearchJobWithoutDataFailsWithAReasonInTheProductsWords() {
        JobQueue research = queues.queue("deep-research");
        String jobId = research.add("deep-research", null, JobOptions.defaults().withJobId("no-data-" + queue.name()))
                .await().atMost(TIMEOUT).jobId();
        Job failed = await().atMost(TIMEOUT).until(() -> redis.job(research, jobId),
                job -> job.state() == JobState.FAILED);
        assertThat(failed.failedReason()).isEqualTo("job `" + jobId + "` has no query: a research job's data must be "
                + "{\"query\": \"...\"}");
    }

    @Test
    void refusesABadFlowNamingTheFieldAndAddsNothing() {
        Map<String, Object> badChild = Map.of("queue", queue.name(), "name", "report", "options", Map.of("jobId", "bad"),
                "children", List.of(Map.of("queue", queue.name(), "name", "part"),
                        Map.of("queue", queue.name(), "name", "part", "options", Map.of("attempts", 0))));

        admin().contentType(ContentType.JSON).body(badChild).post("/admin/flows").then().statusCode(400)
                .body("error", equalTo("bad_request")).body("field", equalTo("children[1].options.attempts"));
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue.name(), "name", "r", "children",
                List.of(Map.of("queue", "no spaces allowed", "name", "part")))).post("/admin/flows").then()
                .statusCode(400).body("field", equalTo("children[0].queue"));
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue.name(), "name", "r", "children",
                List.of(Map.of("queue", queue.name(), "name", "part", "policy", "maybe")))).post("/admin/flows").then()
                .statusCode(400).body("field", equalTo("children[0].policy"));
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue.name(), "name", "r", "children",
                List.of(Map.of("queue", queue.name(), "name", "a", "key", "events")))).post("/admin/flows").then()
                .statusCode(400).body("field", equalTo("children[0].key"));

        assertThat(redis.keys(queue)).as("nothing written").isEmpty();
    }
}
