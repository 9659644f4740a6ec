package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.util.Map;

import dev.fencedqueue.testing.NotificationRows;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RuntimeProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/**
 * {@code fq.bulk.single-flight=refuse}: a second fan-out of a channel whose first one has not finished is refused
 * with 409 and queues nothing; once the first one ended, the channel takes a new one.
 */
@QuarkusTest
@RuntimeProfile(SingleFlightRefuseTest.Refuse.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class SingleFlightRefuseTest {

    /** Refuse mode, and no worker: the first fan-out stays waiting, not finished. */
    public static class Refuse implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("fq.bulk.single-flight", "refuse", "fq.worker.enabled", "false");
        }
    }

    @PostgresTestResource.InjectPostgres
    NotificationRows rows;

    @Test
    void aSecondFanOutOfABusyChannelIsRefusedWith409() {
        String channel = rows.channelWith(10);
        String first = fanOut(channel).then().statusCode(202).extract().path("jobId");

        fanOut(channel).then().statusCode(409).body("error", equalTo("conflict")).body("message", containsString(first));

        given().auth().preemptive().basic("admin", "admin")
                .post("/admin/queues/notifications/jobs/" + first + "/abort").then().statusCode(200);
        fanOut(channel).then().statusCode(202);
    }

    private static io.restassured.response.Response fanOut(String channel) {
        return given().contentType(ContentType.JSON).body(Map.of("message", "once at a time"))
                .post("/notifications/channels/" + channel + "/fan-out");
    }
}
