package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.Map;

import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.RestrictiveProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /research/start} is rate limited per client address (3 per 5 s here: the four requests of a window fit
 * in it however the machine stalls), with 429 and {@code Retry-After}; a refused request creates nothing, another
 * address is not affected, and the window ends. The client's address comes from {@code X-Forwarded-For}, as behind an
 * ingress with Quarkus's proxy address forwarding.
 */
@QuarkusTest
@TestProfile(RestrictiveProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class StartRateLimitTest {

    @Inject
    Queues queues;

    @Test
    void refusesAClientPastItsLimitWithRetryAfterUntilItsWindowEnds() {
        JobQueue queue = queues.queue("deep-research");
        for (int i = 0; i < RestrictiveProfile.STARTS; i++) {
            start("203.0.113.7", "query " + i).then().statusCode(202);
        }
        long afterThree = waiting(queue);

        Response refused = start("203.0.113.7", "one too many");
        refused.then().statusCode(429).contentType(ContentType.JSON).body("error", equalTo("too_many_requests"));
        assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(1L, 5L);
        assertThat(waiting(queue)).as("the refused request created no job").isEqualTo(afterThree);

        start("198.51.100.2", "another client").then().statusCode(202);

        await("the window ends").atMost(TIMEOUT).pollInterval(Duration.ofMillis(250))
                .until(() -> start("203.0.113.7", "later").statusCode() == 202);
    }

    private static long waiting(JobQueue queue) {
        return queue.getJobCounts().await().atMost(TIMEOUT).getOrDefault(JobState.WAITING, 0L);
    }

    private static Response start(String client, String query) {
        return given().header("X-Forwarded-For", client).contentType(ContentType.JSON).body(Map.of("query", query))
                .post("/research/start");
    }
}
