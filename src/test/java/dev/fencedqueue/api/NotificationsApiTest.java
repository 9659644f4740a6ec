package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.FAN_OUT_END;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SseClient;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

/**
 * The notification API end to end on a real PostgreSQL and Redis, run by the service's own workers: subscribers,
 * a fan-out that commits every chunk exactly once, its status and SSE stream, a subscriber's notifications, and
 * bad input.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class NotificationsApiTest {

    @TestHTTPResource("/")
    URL base;

    @PostgresTestResource.InjectPostgres
    NotificationRows rows;

    @Test
    void fanOutNotifiesEverySubscriberExactlyOnceAndReportsItsCursor() {
        String channel = "news-" + System.nanoTime();
        for (int batch = 0; batch < 3; batch++) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 1000 && batch * 1000 + i < 2500; i++) {
                ids.add(String.format("u-%05d", batch * 1000 + i));
            }
            given().contentType(ContentType.JSON).body(Map.of("subscriberIds", ids))
                    .post("/notifications/channels/" + channel + "/subscribers")
                    .then().statusCode(200).body("added", equalTo(ids.size()));
        }
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of("u-00000", "u-00001")))
                .post("/notifications/channels/" + channel + "/subscribers")
                .then().statusCode(200).body("added", equalTo(0));

        String jobId = given().contentType(ContentType.JSON).body(Map.of("message", "hello subscribers", "chunkSize", 200))
                .post("/notifications/channels/" + channel + "/fan-out").then().statusCode(202)
                .body("streamUrl", startsWith("/notifications/jobs/")).extract().path("jobId");

        long token;
        try (SseClient sse = SseClient.open(base + "notifications/jobs/" + jobId + "/stream")) {
            await().atMost(FAN_OUT_END).until(() -> sse.ended().isDone());
            List<SseClient.Message> events = sse.events();
            assertThat(events.get(0).event()).isEqualTo("started");
            token = events.get(0).fencingToken();
            assertThat(events).as("one run").extracting(SseClient.Message::fencingToken).containsOnly(token);
            assertThat(events.get(events.size() - 1).event()).isEqualTo("completed");
            List<SseClient.Message> progress = events.stream().filter(e -> "progress".equals(e.event())).toList();
            assertThat(progress).hasSize(14); // 13 chunks (12 of 200, one of 100), then the final report
            assertThat(JsonPath.from(progress.get(0).data()).getString("cursor")).isEqualTo("u-00199");
            assertThat(JsonPath.from(progress.get(0).data()).getInt("itemsTotal")).isEqualTo(2500);
        }

        JsonPath status = given().get("/notifications/jobs/" + jobId).then().statusCode(200).extract().jsonPath();
        assertThat(status.getString("state")).isEqualTo("completed");
        assertThat(status.getString("cursor")).isEqualTo("u-02499");
        assertThat(status.getInt("itemsDone")).isEqualTo(2500);
        assertThat(status.getInt("itemsTotal")).isEqualTo(2500);
        assertThat(status.getInt("chunksDone")).isEqualTo(13);
        assertThat(status.getLong("fencingToken")).as("the run's token").isPositive().isEqualTo(token);
        assertThat(status.getString("singleFlightKey")).isEqualTo(channel);

        assertThat(rows.rows("notification", jobId)).isEqualTo(2500);
        assertThat(rows.rows("push_outbox", jobId)).isEqualTo(2500);
        assertThat(rows.notExactlyOnce("notification", channel, jobId)).isZero();
        assertThat(rows.notExactlyOnce("push_outbox", channel, jobId)).isZero();

        given().get("/notifications/subscribers/u-01234").then().statusCode(200).body("$", hasSize(1))
                .body("[0].message", equalTo("hello subscribers")).body("[0].jobId", equalTo(jobId))
                .body("[0].channel", equalTo(channel));
    }

    @Test
    void rejectsBadInputNamingTheField() {
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of("ok")))
                .post("/notifications/channels/bad$channel/subscribers")
                .then().statusCode(400).body("field", equalTo("channel"));
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of()))
                .post("/notifications/channels/c/subscribers")
                .then().statusCode(400).body("field", equalTo("subscriberIds"));
        List<String> tooMany = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            tooMany.add("s" + i);
        }
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", tooMany))
                .post("/notifications/channels/c/subscribers")
                .then().statusCode(400).body("message", containsString("1000"));
        given().contentType(ContentType.JSON).body(Map.of("subscriberIds", List.of("no spaces")))
                .post("/notifications/channels/c/subscribers")
                .then().statusCode(400).body("field", equalTo("subscriberIds[0]"))
                .body("message", containsString("`subscriberIds[0]`"));
        given().contentType(ContentType.JSON).body("{}").post("/notifications/channels/c/fan-out")
                .then().statusCode(400).body("field", equalTo("message"));
        given().contentType(ContentType.JSON).body(Map.of("message", "m", "chunkSize", 0))
                .post("/notifications/channels/c/fan-out").then().statusCode(400).body("field", equalTo("chunkSize"));
        given().contentType(ContentType.JSON).body(Map.of("message", "m", "throttle", Map.of("maxItemsPerSecond", 0)))
                .post("/notifications/channels/c/fan-out")
                .then().statusCode(400).body("field", equalTo("throttle.maxItemsPerSecond"))
                .body("message", equalTo("`throttle.maxItemsPerSecond` must be at least 1"));
        given().get("/notifications/subscribers/has space").then().statusCode(400).body("field", equalTo("subscriberId"));
    }

    @Test
    void answers404ForAChannelWithoutSubscribersAndAnUnknownJob() {
        given().contentType(ContentType.JSON).body(Map.of("message", "anyone?"))
                .post("/notifications/channels/empty-" + System.nanoTime() + "/fan-out")
                .then().statusCode(404).body("error", equalTo("not_found")).body("message", containsString("no subscribers"));
        given().get("/notifications/jobs/fan-out-unknown").then().statusCode(404).body("error", equalTo("not_found"));
        given().accept("text/event-stream").get("/notifications/jobs/fan-out-unknown/stream")
                .then().statusCode(404).body("error", equalTo("not_found"));
        given().get("/notifications/subscribers/nobody-" + System.nanoTime()).then().statusCode(200).body("$", hasSize(0));
    }
}
