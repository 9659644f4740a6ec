package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static org.assertj.core.api.Assertions.assertThat;
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
}
