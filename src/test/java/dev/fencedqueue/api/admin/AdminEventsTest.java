package dev.fencedqueue.api.admin;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import org.junit.jupiter.api.Test;

/** The operator API's live feed of a queue's events over SSE, behind the operator's credentials. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminEventsTest extends QueueTestSupport {

    private static final Map<String, String> OPERATOR = Map.of("Authorization", "Basic "
            + Base64.getEncoder().encodeToString((AdminApi.USERNAME + ":" + AdminApi.PASSWORD).getBytes(StandardCharsets.UTF_8)));

    @TestHTTPResource("/")
    URL base;

    @Test
    void feedsTheQueueEventsOfAJobAsTheyHappen() {
        try (SseClient feed = SseClient.open(base + "admin/queues/" + queue.name() + "/events", OPERATOR)) {
            await().atMost(TIMEOUT).until(() -> feed.status().isDone());
            assertThat(feed.status()).isCompletedWithValue(200);
            startWorker(ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done")));
            // "From now on" starts where the stream ends when the feed first reads it, which may come a little after
            // the 200: a first job shows that the feed is reading, then the second one is followed from its start.
            String first = queue.add("job", Map.of("n", 0), JobOptions.defaults()).await().atMost(TIMEOUT).jobId();
            await().atMost(TIMEOUT).until(() -> ended(feed, first));
            String jobId = queue.add("job", Map.of("n", 1), JobOptions.defaults()).await().atMost(TIMEOUT).jobId();

            await().atMost(TIMEOUT).until(() -> ended(feed, jobId));
            List<SseClient.Message> events = feed.events().stream()
                    .filter(e -> jobId.equals(e.field("jobId"))).toList();
            assertThat(events).extracting(SseClient.Message::event).containsSubsequence("waiting", "active", "completed");
            assertThat(feed.events()).allSatisfy(e -> {
                assertThat(e.id()).matches("\\d+-\\d+");
                assertThat(e.field("jobId")).isIn(first, jobId);
            });
        }
    }

    @Test
    void feedNeedsTheOperatorsCredentials() {
        given().accept("text/event-stream").get("/admin/queues/" + queue.name() + "/events").then().statusCode(401);
        given().auth().preemptive().basic(AdminApi.USERNAME, "wrong").accept("text/event-stream")
                .get("/admin/queues/" + queue.name() + "/events").then().statusCode(401);
    }

    private static boolean ended(SseClient feed, String jobId) {
        return feed.events().stream().anyMatch(e -> "completed".equals(e.event())
                && jobId.equals(e.field("jobId")));
    }

    private void startWorker(ProbeProcessor processor) {
        workers.start(processor, TestWorkers.options("w-feed").build());
    }
}
