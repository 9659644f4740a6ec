package dev.fencedqueue.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.fencedqueue.config.WorkerConfig;
import dev.fencedqueue.queue.SharedConnection;
import dev.fencedqueue.research.ResearchProcessor;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.SseClient;
import dev.fencedqueue.testing.WorkersOffProfile;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import dev.fencedqueue.worker.WorkerOptions;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
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
@TestProfile(WorkersOffProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class ManySubscribersTest {

    private static final int SUBSCRIBERS = 200;

    @TestHTTPResource("/")
    URL base;

    @Inject
    WorkerManager workers;

    @Inject
    WorkerConfig config;

    @Inject
    ResearchProcessor research;

    @Inject
    SharedConnection redis;

    @Test
    void twoHundredSubscribersOnOneJobAllReceiveEveryEvent() {
        String jobId = given().contentType(ContentType.JSON).body(Map.of("query", "popular")).post("/research/start")
                .then().statusCode(202).extract().path("jobId");
        List<SseClient> clients = new ArrayList<>();
        Worker worker = null;
        try {
            for (int i = 0; i < SUBSCRIBERS; i++) {
                clients.add(SseClient.open(base + "research/stream/" + jobId));
            }
            CompletableFuture.allOf(clients.stream().map(SseClient::status).toArray(CompletableFuture[]::new))
                    .orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
            assertThat(clients).allSatisfy(c -> assertThat(c.status().join()).isEqualTo(200));

            worker = workers.create(research, WorkerOptions.from(config, "popular-worker"));
            worker.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> clients.get(0).events().size() >= 3);
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
            if (worker != null) {
                workers.stop(worker).await().atMost(Duration.ofSeconds(10));
            }
        }
    }

    private long redisClients() {
        String list = redis.send(Request.cmd(Command.CLIENT).arg("LIST")).await().atMost(Duration.ofSeconds(5)).toString();
        return list.lines().filter(line -> !line.isBlank()).count();
    }
}
