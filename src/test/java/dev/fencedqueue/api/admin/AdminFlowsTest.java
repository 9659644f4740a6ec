package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/** {@code POST /admin/flows}, and a flow's tree in the job views: a parent's children, a child's parent. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminFlowsTest extends QueueTestSupport {

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
                .body("children.jobId", hasItems("weekly:north", "weekly:south"));

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
                part.fail(new dev.fencedqueue.worker.UnrecoverableJobException("south broke"));
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
        assertThat(queue.getFailedChildren("weekly").await().atMost(TIMEOUT)).containsOnlyKeys(
                other.keys().job("weekly:south"));
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
