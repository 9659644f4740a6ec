package dev.fencedqueue.it;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;

import java.net.URL;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.testing.RedisServerHandle;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SimulatorStreams;
import dev.fencedqueue.testing.SseClient;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.Request;
import org.junit.jupiter.api.Test;

/**
 * The packaged application (jar, or native executable with {@code -Dnative}) run by its own workers, as an
 * operator and a user see it: abort of a running job, and the operator API's queue and job operations, each
 * of which runs one of the queue's Lua scripts from the executable's resources. Jobs here outlive their
 * timeout (a 6 s simulated stream, a 3 s job timeout, one attempt), so every job that is not aborted fails.
 */
@QuarkusIntegrationTest
@TestProfile(PackagedOperatorIT.TimingOutJobs.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class PackagedOperatorIT {

    /** Research jobs of 40 steps of 150 ms that time out after 3 s, with one attempt each. */
    public static class TimingOutJobs implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("fq.simulator.research.steps", "40",
                    "fq.simulator.research.step-interval", "150ms",
                    "fq.research.attempts.timeout", "3s",
                    "fq.research.attempts.max", "1");
        }
    }

    private static final String QUEUE = "/admin/queues/deep-research";
    private static final String JOBS = QUEUE + "/jobs";
    private static final List<String> TERMINAL = List.of("completed", "failed", "aborted");

    @TestHTTPResource("/")
    URL base;

    @RedisTestResource.InjectRedis
    RedisServerHandle redis;

    @Test
    void abortClosesTheRunningJobsLlmCallAndEndsItsStreamOnce() {
        String jobId = startJob("abort me while running");
        try (SseClient sse = SseClient.open(base + "research/stream/" + jobId)) {
            await().atMost(TIMEOUT).until(() -> sse.events().stream().anyMatch(e -> "progress".equals(e.event())));

            given().post("/research/abort/" + jobId).then().statusCode(200).body("state", equalTo("aborted"))
                    .body("previousState", equalTo("active")).body("wasRunning", equalTo(true));
            await("the simulator sees its stream closed").atMost(TIMEOUT)
                    .until(() -> SimulatorStreams.of(jobId).closedEarly() == 1);
            await().atMost(TIMEOUT).until(() -> sse.ended().isDone());
            List<SseClient.Message> events = sse.events();
            assertThat(events).filteredOn(e -> TERMINAL.contains(e.event())).extracting(SseClient.Message::event)
                    .containsExactly("aborted");
            assertThat(events.get(0).event()).isEqualTo("started");
            assertThat(events.get(events.size() - 1).fencingToken()).as("written under the run's token")
                    .isEqualTo(events.get(0).fencingToken());
            assertThat(events.get(events.size() - 1).data()).contains("aborted by user");
        }
        assertThat(status(jobId).getString("state")).isEqualTo("aborted");
        assertThat(SimulatorStreams.of(jobId).opened()).isEqualTo(1);
    }

    @Test
    void operatorPausesRemovesRetriesCleansAndDrainsTheResearchQueue() {
        admin().post(QUEUE + "/pause").then().statusCode(200).body("paused", equalTo(true));
        String removed = startJob("removed while the queue is paused");
        String retried = startJob("fails, then is retried");
        admin().get(QUEUE).then().statusCode(200).body("paused", equalTo(true)).body("counts.paused", equalTo(2));
        admin().get(JOBS + "?state=paused").then().statusCode(200).body("jobs.jobId", hasItems(removed, retried));

        admin().delete(JOBS + "/" + removed).then().statusCode(200).body("previousState", equalTo("waiting"));
        admin().get(JOBS + "/" + removed).then().statusCode(404).body("error", equalTo("not_found"));
        admin().contentType(ContentType.JSON).body(Map.of("globalConcurrency", 1)).put(QUEUE + "/limits")
                .then().statusCode(200).body("globalConcurrency", equalTo(1));

        admin().post(QUEUE + "/resume").then().statusCode(200).body("paused", equalTo(false));
        await("the job runs into its timeout").atMost(TIMEOUT)
                .until(() -> "failed".equals(status(retried).getString("state")));
        assertThat(status(retried).getString("failedReason")).contains("timed out");
        admin().get(JOBS + "?state=failed").then().body("jobs.jobId", hasItem(retried));

        long failedEpoch = status(retried).getLong("fencingToken");
        admin().post(JOBS + "/" + retried + "/retry").then().statusCode(200).body("attemptsMade", equalTo(0));
        await("the retried job runs in a new epoch").atMost(TIMEOUT)
                .until(() -> status(retried).getLong("fencingToken") > failedEpoch);
        await().atMost(TIMEOUT).until(() -> "failed".equals(status(retried).getString("state")));
        List<String> history = given().get("/research/history/" + retried).jsonPath().getList("event");
        assertThat(history).filteredOn("started"::equals).hasSize(2);

        admin().post(QUEUE + "/clean?state=failed&grace=0s").then().statusCode(200).body("jobIds", hasItem(retried));
        given().get("/research/status/" + retried).then().statusCode(404);

        admin().post(QUEUE + "/pause").then().statusCode(200);
        String drained = startJob("drained before it runs");
        admin().post(QUEUE + "/drain").then().statusCode(200).body("removed", equalTo(1));
        given().get("/research/status/" + drained).then().statusCode(404);
        admin().post(QUEUE + "/resume").then().statusCode(200);
        admin().contentType(ContentType.JSON).body("{\"globalConcurrency\": null}").put(QUEUE + "/limits")
                .then().statusCode(200);
    }

    /** The service loads every script (includes resolved) into Redis when it connects: all came from its resources. */
    @Test
    void everyLuaScriptOfTheQueueIsLoadedFromTheApplicationsResources() {
        Vertx vertx = Vertx.vertx();
        try {
            Redis client = Redis.createClient(vertx, redis.uri());
            String memory = client.send(Request.cmd(Command.INFO).arg("memory")).await().atMost(TIMEOUT).toString();
            assertThat(memory).contains("number_of_cached_scripts:" + LuaScript.values().length + "\r\n");
            client.close();
        } finally {
            vertx.closeAndAwait();
        }
        given().get("/q/health/ready").then().statusCode(200).body(containsString("UP"));
    }

    private static RequestSpecification admin() {
        return given().auth().preemptive().basic("admin", "admin");
    }

    private static String startJob(String query) {
        return given().contentType(ContentType.JSON).body(Map.of("query", query)).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
    }

    private static JsonPath status(String jobId) {
        return given().get("/research/status/" + jobId).then().statusCode(200).extract().jsonPath();
    }
}
