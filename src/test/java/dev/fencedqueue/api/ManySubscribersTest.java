package dev.fencedqueue.api;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.Flood;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.ResearchTestSupport;
import dev.fencedqueue.testing.RuntimeProfile;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * 200 SSE subscribers on one job, with the default Redis client pool: every subscriber receives every
 * event, live, while Redis sees only a handful of connections from the service (the subscribers share
 * one tailer instead of holding a connection each).
 */
@QuarkusTest
@RuntimeProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ManySubscribersTest extends ResearchTestSupport {

    private static final int SUBSCRIBERS = 200;

    @Inject
    SharedConnection redis;

    @Inject
    ObjectMapper json;

    @Test
    void twoHundredSubscribersOnOneJobAllReceiveEveryEvent() {
        String jobId = startJob("popular");
        List<SseClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < SUBSCRIBERS; i++) {
                clients.add(SseClient.open(base + "research/stream/" + jobId));
            }
            CompletableFuture.allOf(clients.stream().map(SseClient::status).toArray(CompletableFuture[]::new))
                    .orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
            assertThat(clients).allSatisfy(c -> assertThat(c.status().join()).isEqualTo(200));

            startResearchWorker("popular-worker");
            await().atMost(TIMEOUT).until(() -> clients.get(0).events().size() >= 3);
            assertThat(redisClients()).as("Redis connections while %d subscribers follow the job", SUBSCRIBERS)
                    .isLessThan(12);

            await().atMost(Duration.ofSeconds(30)).until(() -> clients.stream().allMatch(c -> c.ended().isDone()));
            List<String> expected = given().get("/research/history/" + jobId).jsonPath().getList("id");
            assertThat(expected).hasSizeGreaterThan(10);
            for (SseClient client : clients) {
                assertThat(client.events()).extracting(SseClient.Message::id).containsExactlyElementsOf(expected);
            }
        } finally {
            clients.forEach(SseClient::close);
        }
    }

    /**
     * Subscribers that join while a job appends as fast as the fence allows: each one's replay meets the live events
     * the tailer hands it, and every subscriber still gets every event once, in order (the live events that the replay
     * already holds are dropped, whichever arrives first).
     */
    @Test
    void subscribersJoiningDuringAFloodOfEventsGetEachEventOnce() {
        String jobId = startJob("flood");
        List<SseClient> clients = new ArrayList<>();
        try {
            worker(new Flood(json, 3_000, "", 16), "flood-worker").start();
            for (int i = 0; i < 60; i++) {
                clients.add(SseClient.open(base + "research/stream/" + jobId));
                int opened = clients.size();
                await().atMost(TIMEOUT).until(() -> clients.get(opened - 1).status().isDone());
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> clients.stream().allMatch(c -> c.ended().isDone()));
            List<String> expected = given().get("/research/history/" + jobId).jsonPath().getList("id");
            assertThat(expected).hasSize(3_002);
            for (SseClient client : clients) {
                assertThat(client.events()).extracting(SseClient.Message::id).containsExactlyElementsOf(expected);
            }
        } finally {
            clients.forEach(SseClient::close);
        }
    }

    private long redisClients() {
        String list = redis.send(Request.cmd(Command.CLIENT).arg("LIST")).await().atMost(TIMEOUT).toString();
        return list.lines().filter(line -> !line.isBlank()).count();
    }
}
