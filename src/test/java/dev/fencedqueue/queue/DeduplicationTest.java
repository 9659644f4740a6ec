package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Deduplication (an id that makes adds return the live job instead of adding one, for a TTL or until the
 * job ends) and idempotency keys (which outlive the job's removal).
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class DeduplicationTest extends QueueTestSupport {

    @Inject
    Queues queues;

    @Inject
    ResearchConfig research;

    @Test
    void deduplicationWithTtlIgnoresAddsDuringTheTtlAndAcceptsThemAfter() {
        JobOptions options = JobOptions.defaults().withDeduplication(new Deduplication("report-7", Duration.ofMillis(500)));

        AddResult first = submit(options);
        AddResult during = submit(options.withAttempts(3));

        assertThat(first.created()).isTrue();
        assertThat(during).isEqualTo(new AddResult(first.jobId(), false, true));
        assertThat(waitingCount()).isEqualTo(1);
        assertThat(redis.job(queue, first.jobId()).attempts()).as("the live job is unchanged").isEqualTo(1);
        assertThat(pttl(dedupKey("report-7"))).isBetween(1L, 500L);

        await().atMost(TIMEOUT).until(() -> !redis.exists(dedupKey("report-7")));
        AddResult after = submit(options);

        assertThat(after.created()).isTrue();
        assertThat(after.deduplicated()).isFalse();
        assertThat(after.jobId()).isNotEqualTo(first.jobId());
    }

    @Test
    void deduplicationWithTtlLastsItsTtlEvenAfterTheJobCompleted() {
        workers.start(completing(), TestWorkers.options("w-ttl").build());
        JobOptions options = JobOptions.defaults()
                .withDeduplication(new Deduplication("throttled", Duration.ofSeconds(30)));
        AddResult first = submit(options);
        await().atMost(TIMEOUT).until(() -> redis.job(queue, first.jobId()).state() == JobState.COMPLETED);

        assertThat(submit(options)).isEqualTo(new AddResult(first.jobId(), false, true));
    }

    @Test
    void deduplicationWithoutTtlLastsUntilTheJobCompletes() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-complete").build());
        JobOptions options = untilEnded("until-completed");
        AddResult first = submit(options);
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        assertThat(submit(options)).as("while active").isEqualTo(new AddResult(first.jobId(), false, true));
        assertThat(pttl(dedupKey("until-completed"))).as("no TTL").isEqualTo(-1L);

        processor.attempt(0).complete("done");
        await().atMost(TIMEOUT).until(() -> redis.job(queue, first.jobId()).state() == JobState.COMPLETED);

        assertAcceptedAgain(options, first.jobId());
    }

    @Test
    void deduplicationWithoutTtlHoldsWhileAFailedAttemptWaitsForItsRetryAndEndsWhenTheJobFails() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-fail").build());
        JobOptions options = untilEnded("until-failed").withAttempts(2)
                .withBackoff(Backoff.fixed(Duration.ofMillis(300)));
        AddResult first = submit(options);
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        processor.attempt(0).fail(new IllegalStateException("first"));
        await().atMost(TIMEOUT).until(() -> redis.job(queue, first.jobId()).state() == JobState.DELAYED);
        assertThat(submit(options)).as("while delayed for its retry").isEqualTo(new AddResult(first.jobId(), false, true));

        await().atMost(TIMEOUT).until(() -> processor.started() == 2);
        processor.attempt(1).fail(new IllegalStateException("second"));
        await().atMost(TIMEOUT).until(() -> redis.job(queue, first.jobId()).state() == JobState.FAILED);

        assertAcceptedAgain(options, first.jobId());
    }

    @Test
    void deduplicationWithoutTtlEndsWhenTheJobIsAborted() {
        JobOptions options = untilEnded("until-aborted");
        AddResult first = submit(options);
        assertThat(submit(options).deduplicated()).isTrue();

        queue.abort(first.jobId(), "not needed").await().atMost(TIMEOUT);

        assertAcceptedAgain(options, first.jobId());
    }

    @Test
    void deduplicationWithoutTtlEndsWhenTheJobIsRemoved() {
        JobOptions options = untilEnded("until-removed");
        AddResult first = submit(options);
        assertThat(submit(options).deduplicated()).isTrue();

        queue.maintenance().remove(first.jobId()).await().atMost(TIMEOUT);

        assertAcceptedAgain(options, first.jobId());
    }

    @Test
    void differentDeduplicationIdsDoNotInterfere() {
        AddResult a = submit(untilEnded("a"));
        AddResult b = submit(untilEnded("b"));

        assertThat(a.created()).isTrue();
        assertThat(b.created()).isTrue();
        assertThat(b.jobId()).isNotEqualTo(a.jobId());
    }

    @Test
    void idempotencyKeyKeepsReturningTheJobAfterRetentionRemovedIt() {
        workers.start(completing(), TestWorkers.options("w-idempotent").build());
        JobOptions options = JobOptions.defaults().withIdempotencyKey("order-9", Duration.ofHours(1))
                .withRemoveOnComplete(KeepJobs.NONE);
        AddResult first = submit(options);
        await().atMost(TIMEOUT).until(() -> redis.job(queue, first.jobId()) == null);

        AddResult again = submit(options);

        assertThat(again).isEqualTo(new AddResult(first.jobId(), false, false));
        assertThat(waitingCount()).isZero();
    }

    @Test
    void idempotencyKeyHeaderKeepsReturningTheJobAfterItWasRemoved() {
        String key = UUID.randomUUID().toString();
        String jobId = start(key, true);
        JobQueue researchQueue = queues.queue(research.queue());
        researchQueue.abort(jobId, "ends it at once").onFailure(JobFinishedException.class).recoverWithNull()
                .await().atMost(TIMEOUT);
        researchQueue.maintenance().remove(jobId).await().atMost(TIMEOUT);
        given().get("/research/status/" + jobId).then().statusCode(404);

        assertThat(start(key, false)).isEqualTo(jobId);
        assertThat(start(UUID.randomUUID().toString(), true)).isNotEqualTo(jobId);
    }

    private static String start(String idempotencyKey, boolean created) {
        return given().contentType(ContentType.JSON).header("Idempotency-Key", idempotencyKey)
                .body(Map.of("query", "idempotent research")).post("/research/start")
                .then().statusCode(202).body("created", equalTo(created)).extract().path("jobId");
    }

    private void assertAcceptedAgain(JobOptions options, String endedJobId) {
        AddResult again = submit(options);
        assertThat(again.created()).as("a new job once the deduplicated one ended").isTrue();
        assertThat(again.jobId()).isNotEqualTo(endedJobId);
        assertThat(submit(options)).isEqualTo(new AddResult(again.jobId(), false, true));
    }

    private static JobOptions untilEnded(String dedupId) {
        return JobOptions.defaults().withDeduplication(new Deduplication(dedupId, null));
    }

    private ProbeProcessor completing() {
        return ProbeProcessor.of(queue.name(), context -> Uni.createFrom().item("done"));
    }

    private String dedupKey(String id) {
        return queue.keys().prefix() + "dedup:" + id;
    }

    private long pttl(String key) {
        return redis.send(Request.cmd(Command.PTTL).arg(key)).toLong();
    }

    private long waitingCount() {
        return queue.getJobCounts().await().atMost(TIMEOUT).get(JobState.WAITING);
    }

    /** @return the whole outcome of an add: the job id, and whether it was deduplicated */
    private AddResult submit(JobOptions options) {
        return queue.add("job", null, options).await().atMost(TIMEOUT);
    }
}
