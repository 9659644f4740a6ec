package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static org.assertj.core.api.Assertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * A flow of research jobs over HTTP only, so that {@link FlowsApiIT} runs it against the jar and the native
 * executable: the parent runs once its children completed, and its view lists them.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class FlowsApiTest {

    @Test
    void runsAResearchParentAfterItsChildrenAndListsThemInItsView() {
        String queue = admin().get("/admin/queues").then().statusCode(200).extract().path("[0].queue");
        String root = "flow-" + UUID.randomUUID();
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue, "name", "research",
                "data", Map.of("query", "the whole market"), "options", Map.of("jobId", root),
                "children", List.of(Map.of("queue", queue, "name", "research", "key", "north",
                        "data", Map.of("query", "the north")),
                        Map.of("queue", queue, "name", "research", "key", "south", "data", Map.of("query", "the south")))))
                .post("/admin/flows").then().statusCode(201).body("jobId", equalTo(root)).body("warnings", nullValue());

        String path = "/admin/queues/" + queue + "/jobs/";
        JsonPath parent = await().atMost(Duration.ofSeconds(30)).until(
                () -> admin().get(path + root).then().statusCode(200).extract().jsonPath(),
                view -> "completed".equals(view.getString("state")));
        assertThat(parent.getList("children.state")).containsExactly("completed", "completed");
        assertThat(parent.getList("children.jobId")).containsExactly(root + ":north", root + ":south");
        assertThat(parent.getString("result.summary")).contains("the whole market");
        for (String child : List.of(root + ":north", root + ":south")) {
            JsonPath view = admin().get(path + child).then().statusCode(200).body("parentId", equalTo(root))
                    .extract().jsonPath();
            assertThat(view.getLong("finishedOn")).as("a child ends before its parent starts")
                    .isLessThanOrEqualTo(parent.getLong("processedOn"));
        }
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue, "name", "research", "children",
                List.of(Map.of("queue", queue, "name", "research", "options", Map.of("backoff", Map.of("type", "cubic"))))))
                .post("/admin/flows").then().statusCode(400).body("field", equalTo("children[0].options.backoff.type"));
    }

    /**
     * A research job's data is checked as {@code POST /research/start} checks it, in the packaged service too: a
     * deep-research parent without a query is refused at the door, not failed later with a Java message.
     */
    @Test
    void refusesAResearchFlowWithoutAQueryNamingTheField() {
        String queue = admin().get("/admin/queues").then().statusCode(200).extract().path("[0].queue");
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue, "name", "deep-research", "children",
                List.of(Map.of("queue", queue, "name", "research", "data", Map.of("query", " ")))))
                .post("/admin/flows").then().statusCode(400).body("field", equalTo("data.query"))
                .body("message", equalTo("`data.query` must not be blank"));
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue, "name", "deep-research",
                "data", Map.of("query", "q", "mode", "deep"), "children", List.of(Map.of("queue", queue,
                        "name", "research", "data", Map.of("query", "x", "moed", "deep")))))
                .post("/admin/flows").then().statusCode(400).body("field", equalTo("children[0].data.moed"));
    }

    /**
     * A flow's root id names one flow: the same request again (a client's retry) adds nothing and answers the flow
     * that exists, another flow under that id is refused naming the job, and neither changes the job.
     */
    @Test
    void addingTheSameFlowAgainAnswersItAndAnotherFlowUnderItsIdIsAConflict() {
        String queue = admin().get("/admin/queues").then().statusCode(200).extract().path("[0].queue");
        String root = "flow-" + UUID.randomUUID();
        Map<String, Object> flow = Map.of("queue", queue, "name", "research", "data", Map.of("query", "again"),
                "options", Map.of("jobId", root), "children", List.of(Map.of("queue", queue, "name", "research",
                        "key", "one", "data", Map.of("query", "the first part"))));
        admin().contentType(ContentType.JSON).body(flow).post("/admin/flows").then().statusCode(201)
                .body("created", equalTo(true));

        admin().contentType(ContentType.JSON).body(flow).post("/admin/flows").then().statusCode(200)
                .body("jobId", equalTo(root)).body("created", equalTo(false))
                .body("children[0].jobId", equalTo(root + ":one"));
        Map<String, Object> other = Map.of("queue", queue, "name", "research", "data", Map.of("query", "another"),
                "options", Map.of("jobId", root), "children", List.of(Map.of("queue", queue, "name", "research",
                        "key", "two", "data", Map.of("query", "another part"))));
        String message = admin().contentType(ContentType.JSON).body(other).post("/admin/flows").then().statusCode(409)
                .extract().path("message");
        assertThat(message).contains("`" + root + "`").contains("another `options.jobId`");

        JsonPath parent = await().atMost(Duration.ofSeconds(30)).until(() -> admin()
                .get("/admin/queues/" + queue + "/jobs/" + root).then().statusCode(200).extract().jsonPath(),
                view -> "completed".equals(view.getString("state")));
        assertThat(parent.getString("data.query")).isEqualTo("again");
        assertThat(parent.getList("children.jobId")).as("the first flow's children only").containsExactly(root + ":one");
    }

    /** A research job of a flow that names no attempts gets those of {@code POST /research/start}, not one. */
    @Test
    void aResearchJobOfAFlowWithoutOptionsGetsTheOptionsOfAStartedResearchJob() {
        String queue = admin().get("/admin/queues").then().statusCode(200).extract().path("[0].queue");
        String root = "flow-" + UUID.randomUUID();
        admin().contentType(ContentType.JSON).body(Map.of("queue", queue, "name", "research",
                "data", Map.of("query", "defaults"), "options", Map.of("jobId", root, "attempts", 5),
                "children", List.of(Map.of("queue", queue, "name", "research", "key", "plain",
                        "data", Map.of("query", "no options")))))
                .post("/admin/flows").then().statusCode(201);
        int child = admin().get("/admin/queues/" + queue + "/jobs/" + root + ":plain").then().statusCode(200)
                .extract().path("attempts");
        assertThat(child).as("the child's attempts").isEqualTo(researchAttempts(queue)).isGreaterThan(1);
        assertThat(admin().get("/admin/queues/" + queue + "/jobs/" + root).then().statusCode(200)
                .extract().<Integer>path("attempts")).as("what the root names").isEqualTo(5);
    }

    /** @return the attempts of a job started with {@code POST /research/start} */
    private static int researchAttempts(String queue) {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "how many attempts?"))
                .post("/research/start").then().statusCode(202).extract().path("jobId");
        return admin().get("/admin/queues/" + queue + "/jobs/" + jobId).then().statusCode(200).extract().path("attempts");
    }
}
