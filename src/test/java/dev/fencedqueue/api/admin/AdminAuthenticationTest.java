package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.equalToIgnoringCase;
import static org.hamcrest.Matchers.hasItem;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/** Every {@code /admin} path needs HTTP Basic credentials of a user with role {@code admin}; nothing else does. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminAuthenticationTest {

    /** A user of the realm without the operator role (application.properties, test profile). */
    private static final String VIEWER = "viewer";
    private static final String VIEWER_PASSWORD = "viewer-password";

    @Test
    void adminPathsAnswer401WithABasicChallengeWithoutCredentials() {
        given().get("/admin/queues").then().statusCode(401)
                .header("WWW-Authenticate", equalToIgnoringCase("basic realm=\"fenced-queue\""));
        given().get("/admin").then().statusCode(401);
        given().get("/admin/queues/deep-research/jobs").then().statusCode(401);
    }

    /** Without credentials nothing under /admin tells what exists: an unknown path or a wrong method is 401 too. */
    @Test
    void unknownPathsAndMethodsUnderAdminAnswer401BeforeNotFoundOrMethodNotAllowed() {
        given().get("/admin/no-such-thing").then().statusCode(401).contentType(ContentType.JSON)
                .header("WWW-Authenticate", equalToIgnoringCase("basic realm=\"fenced-queue\""));
        given().delete("/admin/queues").then().statusCode(401);
        given().put("/admin/queues/deep-research/jobs").then().statusCode(401);
        given().auth().preemptive().basic(AdminApi.USERNAME, "wrong").get("/admin/no-such-thing").then().statusCode(401);
        given().auth().preemptive().basic(AdminApi.USERNAME, AdminApi.PASSWORD).get("/admin/no-such-thing").then()
                .statusCode(404);
        given().auth().preemptive().basic(AdminApi.USERNAME, AdminApi.PASSWORD).delete("/admin/queues").then()
                .statusCode(405);
    }

    @Test
    void refusalsAreJsonErrorsAndWrongCredentialsGetTheChallengeAgain() {
        given().get("/admin/queues").then().statusCode(401).contentType(ContentType.JSON)
                .body("error", equalTo("unauthorized")).body("message", containsString("role `admin`"));
        given().auth().preemptive().basic(AdminApi.USERNAME, "wrong").get("/admin/queues/deep-research").then()
                .statusCode(401).contentType(ContentType.JSON).body("error", equalTo("unauthorized"))
                .header("WWW-Authenticate", equalToIgnoringCase("basic realm=\"fenced-queue\""));
        given().auth().preemptive().basic(VIEWER, VIEWER_PASSWORD).get("/admin/queues").then()
                .statusCode(403).contentType(ContentType.JSON).body("error", equalTo("forbidden"));
    }

    /** Every operation the OpenAPI document lists under /admin, called without credentials, is refused. */
    @Test
    void everyOperatorOperationInTheOpenApiDocumentNeedsCredentials() {
        Map<String, Map<String, Object>> paths = given().accept("application/json").get("/q/openapi").then()
                .statusCode(200).extract().jsonPath().getMap("paths");
        List<String> operations = new ArrayList<>();
        paths.forEach((path, methods) -> {
            if (path.startsWith("/admin")) {
                String concrete = path.replace("{queue}", "deep-research").replace("{jobId}", "no-such-job")
                        .replace("{id}", "no-such-scheduler");
                for (String method : methods.keySet()) {
                    operations.add(method.toUpperCase(java.util.Locale.ROOT) + " " + path);
                    given().contentType(ContentType.JSON).body("{}").request(method, concrete).then()
                            .statusCode(401).body("error", equalTo("unauthorized"));
                }
            }
        });
        assertThat(operations).as("the operator API's operations").hasSizeGreaterThanOrEqualTo(14)
                .contains("GET /admin", "DELETE /admin/queues/{queue}", "PUT /admin/queues/{queue}/limits",
                        "POST /admin/flows", "PUT /admin/schedulers/{id}", "POST /admin/schedulers/{id}/run-now");
    }

    @Test
    void adminActionsAreNotCarriedOutWithWrongCredentials() {
        String pause = "/admin/queues/deep-research/pause";
        given().auth().preemptive().basic(AdminApi.USERNAME, "wrong").post(pause).then().statusCode(401);
        given().auth().preemptive().basic("intruder", AdminApi.PASSWORD).post(pause).then().statusCode(401);
        given().post(pause).then().statusCode(401);
        given().auth().preemptive().basic(VIEWER, VIEWER_PASSWORD).post(pause).then().statusCode(403);

        admin().get("/admin/queues/deep-research").then().statusCode(200).body("paused", equalTo(false));
    }

    @Test
    void adminPathsAnswerWithTheConfiguredCredentials() {
        admin().get("/admin/queues").then().statusCode(200).contentType(ContentType.JSON)
                .body("queue", hasItem("deep-research"));
        admin().get("/admin").then().statusCode(200).body("queues", equalTo("/admin/queues"));
        // A challenge-response client (no preemptive credentials) gets the same answer after the 401.
        given().auth().basic(AdminApi.USERNAME, AdminApi.PASSWORD).get("/admin/queues").then().statusCode(200);
    }

    @Test
    void researchApiAndHealthStayOpen() {
        given().contentType(ContentType.JSON).body(Map.of("query", "open to everyone")).post("/research/start")
                .then().statusCode(202);
        // Credentials sent where none are needed are ignored, even wrong ones.
        given().auth().preemptive().basic("nobody", "nothing").contentType(ContentType.JSON)
                .body(Map.of("query", "open with a stray Authorization header")).post("/research/start")
                .then().statusCode(202);
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
        given().get("/q/health/live").then().statusCode(200);
    }

    @Test
    void openApiDescribesTheOperatorApi() {
        given().accept("application/json").get("/q/openapi").then().statusCode(200)
                .body(containsString("/admin/queues/{queue}/jobs/{jobId}"))
                .body(containsString("/admin/queues/{queue}/limits"));
    }
}
