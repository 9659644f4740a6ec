package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.nullValue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.UnrecoverableJobException;
import io.smallrye.mutiny.Uni;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator API on queues: counts, paused flag, limits, pause/resume, clean, drain, obliterate. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminQueuesTest extends QueueTestSupport {

    private String path;

    @BeforeEach
    void queuePath() {
        path = "/admin/queues/" + queue.name();
    }

    @Test
    void listsTheResearchQueueAndTheQueuesOfThisInstancesWorkers() {
        startWorker(ProbeProcessor.held(queue.name()));
        add(JobOptions.defaults().withDelay(Duration.ofHours(1)));

        admin().get("/admin/queues").then().statusCode(200)
                .body("queue", hasItems("deep-research", queue.name()))
                .body("[0].queue", equalTo("deep-research"))
                .body("find { it.queue == '" + queue.name() + "' }.served", equalTo(true))
                .body("find { it.queue == '" + queue.name() + "' }.paused", equalTo(false))
                .body("find { it.queue == '" + queue.name() + "' }.counts.delayed", equalTo(1))
                .body("find { it.queue == '" + queue.name() + "' }.counts.keySet()",
                        contains("waiting", "waiting-children", "delayed", "prioritized", "active", "completed", "failed", "paused"));
    }

    @Test
    void showsAQueuesCountsPausedFlagAndLimits() {
        add(JobOptions.defaults());
        add(JobOptions.defaults());
        add(JobOptions.defaults().withPriority(5));
        add(JobOptions.defaults().withDelay(Duration.ofHours(1)));
        queue.setGlobalConcurrency(3).await().atMost(TIMEOUT);
        queue.setRateLimit(10, Duration.ofMinutes(1)).await().atMost(TIMEOUT);

        admin().get(path).then().statusCode(200).contentType(ContentType.JSON)
                .body("queue", equalTo(queue.name())).body("served", equalTo(false)).body("paused", equalTo(false))
                .body("counts.waiting", equalTo(2)).body("counts.prioritized", equalTo(1))
                .body("counts.delayed", equalTo(1)).body("counts.active", equalTo(0))
                .body("limits.globalConcurrency", equalTo(3)).body("limits.rateLimit.max", equalTo(10))
                .body("limits.rateLimit.duration", equalTo("PT1M")).body("limits.rateLimit.durationMs", equalTo(60000));
    }

    @Test
    void showsHowLongTheOldestReadyJobHasWaitedAndTheJobsThatEndedInTheLastMinute() {
        add("ok", JobOptions.defaults());
        add("ok", JobOptions.defaults());
        add("fail", JobOptions.defaults());
        admin().get(path).then().body("lastMinute.completed", equalTo(0)).body("lastMinute.failed", equalTo(0));
        await("the oldest job's wait grows").atMost(TIMEOUT).until(() -> admin().get(path).then().extract()
                .<Float>path("oldestWaitingAge"), age -> age > 0);

        startWorker(ProbeProcessor.of(queue.name(), context -> "fail".equals(context.data(String.class))
                ? Uni.createFrom().failure(new UnrecoverableJobException("told to fail"))
                : Uni.createFrom().item("done")));
        await("every job ended").atMost(TIMEOUT).until(() -> admin().get(path).then().extract().jsonPath(),
                view -> view.getInt("lastMinute.completed") + view.getInt("lastMinute.failed") == 3);
        admin().get(path).then().body("lastMinute.completed", equalTo(2)).body("lastMinute.failed", equalTo(1))
                .body("oldestWaitingAge", equalTo(0.0f));
    }

    @Test
    void answers404ForAQueueWithoutKeysThatThisInstanceDoesNotServe() {
        admin().get(path).then().statusCode(404).contentType(ContentType.JSON)
                .body("error", equalTo("not_found")).body("message", containsString(queue.name()));
    }

    @Test
    void answersAServedQueueEvenBeforeItHasKeys() {
        startWorker(ProbeProcessor.held(queue.name()));
        admin().get(path).then().statusCode(200).body("served", equalTo(true)).body("counts.waiting", equalTo(0))
                .body("limits.globalConcurrency", nullValue()).body("limits.rateLimit", nullValue());
    }

    @Test
    void rejectsAnInvalidQueueNameNamingTheField() {
        admin().get("/admin/queues/" + "q".repeat(101)).then().statusCode(400)
                .body("error", equalTo("bad_request")).body("field", equalTo("queue"));
        admin().post("/admin/queues/bad$name/pause").then().statusCode(400).body("field", equalTo("queue"));
    }

    @Test
    void pausesAndResumesAQueueForTheWholeFleet() {
        add(JobOptions.defaults());

        admin().post(path + "/pause").then().statusCode(200)
                .body("paused", equalTo(true)).body("changed", equalTo(true));
        admin().post(path + "/pause").then().statusCode(200).body("changed", equalTo(false));
        admin().get(path).then().body("paused", equalTo(true)).body("counts.paused", equalTo(1))
                .body("counts.waiting", equalTo(0));
        assertThat(queue.isPaused().await().atMost(TIMEOUT)).isTrue();

        admin().post(path + "/resume").then().statusCode(200)
                .body("paused", equalTo(false)).body("changed", equalTo(true));
        admin().get(path).then().body("paused", equalTo(false)).body("counts.waiting", equalTo(1));
    }

    @Test
    void setsAndRemovesTheFleetWideLimits() {
        admin().contentType(ContentType.JSON)
                .body(Map.of("globalConcurrency", 2, "rateLimit", Map.of("max", 5, "duration", "30s")))
                .put(path + "/limits").then().statusCode(200)
                .body("globalConcurrency", equalTo(2)).body("rateLimit.max", equalTo(5))
                .body("rateLimit.durationMs", equalTo(30000));
        admin().get(path).then().body("limits.globalConcurrency", equalTo(2)).body("limits.rateLimit.duration", equalTo("PT30S"));

        admin().contentType(ContentType.JSON).body("{\"globalConcurrency\": null, \"rateLimit\": null}")
                .put(path + "/limits").then().statusCode(200)
                .body("globalConcurrency", nullValue()).body("rateLimit", nullValue());
        admin().get(path).then().body("limits.globalConcurrency", nullValue()).body("limits.rateLimit", nullValue());
    }

    @Test
    void rejectsInvalidLimitsNamingTheField() {
        putLimits("{\"globalConcurrency\": 0}").then().statusCode(400).body("field", equalTo("globalConcurrency"));
        putLimits("{\"rateLimit\": {\"max\": 0, \"duration\": \"1m\"}}").then().statusCode(400)
                .body("field", equalTo("rateLimit.max"));
        putLimits("{\"rateLimit\": {\"max\": 3}}").then().statusCode(400).body("field", equalTo("rateLimit.duration"));
        putLimits("{\"rateLimit\": {\"max\": 3, \"duration\": \"soon\"}}").then().statusCode(400)
                .body("field", equalTo("rateLimit.duration"));
        putLimits("{\"globalConcurrency\": ").then().statusCode(400).body("error", equalTo("bad_request"));
        admin().contentType(ContentType.JSON).put(path + "/limits").then().statusCode(400).body("field", equalTo("body"));
        admin().get(path).then().statusCode(404);
    }

    @Test
    void cleansJobsOfAStateOlderThanTheGrace() {
        String first = add(JobOptions.defaults());
        add(JobOptions.defaults());

        admin().post(path + "/clean?state=waiting&grace=1h").then().statusCode(200).body("removed", equalTo(0));
        admin().post(path + "/clean?state=waiting&limit=1").then().statusCode(200)
                .body("state", equalTo("waiting")).body("removed", equalTo(1)).body("jobIds", contains(first));
        admin().post(path + "/clean?state=waiting").then().statusCode(200).body("removed", equalTo(1));
        admin().get(path).then().body("counts.waiting", equalTo(0));
    }

    @Test
    void rejectsACleanWithoutAValidStateGraceOrLimit() {
        admin().post(path + "/clean").then().statusCode(400).body("field", equalTo("state"));
        admin().post(path + "/clean?state=active").then().statusCode(400).body("field", equalTo("state"));
        admin().post(path + "/clean?state=finished").then().statusCode(400).body("field", equalTo("state"));
        admin().post(path + "/clean?state=completed&grace=later").then().statusCode(400).body("field", equalTo("grace"));
        admin().post(path + "/clean?state=completed&limit=0").then().statusCode(400).body("field", equalTo("limit"));
        admin().post(path + "/clean?state=completed&limit=many").then().statusCode(400).body("field", equalTo("limit"));
    }

    @Test
    void drainsWaitingJobsAndDelayedOnesWhenAsked() {
        add(JobOptions.defaults());
        add(JobOptions.defaults().withPriority(3));
        add(JobOptions.defaults().withDelay(Duration.ofHours(1)));

        admin().post(path + "/drain").then().statusCode(200).body("removed", equalTo(2));
        admin().get(path).then().body("counts.waiting", equalTo(0)).body("counts.prioritized", equalTo(0))
                .body("counts.delayed", equalTo(1));
        admin().post(path + "/drain?delayed=true").then().statusCode(200).body("removed", equalTo(1));
        admin().post(path + "/drain?delayed=maybe").then().statusCode(400).body("field", equalTo("delayed"));
    }

    @Test
    void refusesToObliterateAQueueThatIsNotPaused() {
        String jobId = add(JobOptions.defaults());

        admin().delete(path).then().statusCode(409).body("error", equalTo("conflict"))
                .body("message", containsString("paused"));
        admin().get(path + "/jobs/" + jobId).then().statusCode(200);
    }

    @Test
    void refusesToObliterateAQueueWithRunningJobsUnlessForced() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        startWorker(processor);
        add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        admin().post(path + "/pause").then().statusCode(200);

        admin().delete(path).then().statusCode(409).body("error", equalTo("conflict"));
        admin().get(path).then().body("counts.active", equalTo(1));

        admin().delete(path + "?force=true").then().statusCode(200).body("deletedKeys", greaterThan(0));
        // The running worker's stalled-job check may set its marker key again; no job key or list is left.
        assertThat(keysOfQueue()).noneMatch(key -> key.contains(":job:") || key.endsWith(":active")
                || key.endsWith(":meta"));
        await().atMost(TIMEOUT).until(() -> processor.attempt(0).isCancelled());
    }

    @Test
    void obliteratesAPausedQueueWithAllItsKeys() {
        add(JobOptions.defaults());
        add(JobOptions.defaults().withDelay(Duration.ofHours(1)));
        admin().post(path + "/pause").then().statusCode(200);

        admin().delete(path).then().statusCode(200).body("queue", equalTo(queue.name()))
                .body("deletedKeys", greaterThan(2));
        assertThat(keysOfQueue()).isEmpty();
        admin().get(path).then().statusCode(404);
        admin().delete(path + "?force=perhaps").then().statusCode(400).body("field", equalTo("force"));
    }

    private io.restassured.response.Response putLimits(String body) {
        return admin().contentType(ContentType.JSON).body(body).put(path + "/limits");
    }

    private void startWorker(ProbeProcessor processor) {
        workers.start(processor, TestWorkers.options("w-admin").drainDelay(Duration.ofSeconds(2)).build());
    }

    private List<String> keysOfQueue() {
        return Replies.elements(redis.send(Request.cmd(Command.KEYS).arg(queue.keys().prefix() + "*")))
                .stream().map(Object::toString).toList();
    }
}
