package dev.fencedqueue.queue;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.testing.QueueInspector;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The producer side of a queue, against a real Redis and without workers on the queue. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class JobQueueTest {

    @Inject
    QueueInspector redis;

    @Inject
    Queues queues;


    private JobQueue queue;

    @BeforeEach
    void freshQueue() {
        queue = redis.freshQueue();
    }

    @Test
    void addsJobInWaitingStateWithAttemptsAndTimestamp() {
        long before = redis.redisTimeMillis();
        AddResult added = add("report", Map.of("query", "q1"), JobOptions.defaults().withAttempts(3));
        long after = redis.redisTimeMillis();

        assertThat(added.created()).isTrue();
        Job job = redis.job(queue, added.jobId());
        assertThat(job.state()).isEqualTo(JobState.WAITING);
        assertThat(job.name()).isEqualTo("report");
        assertThat(job.data()).isEqualTo("{\"query\":\"q1\"}");
        assertThat(job.attempts()).isEqualTo(3);
        assertThat(job.attemptsMade()).isZero();
        assertThat(job.attemptsStarted()).isZero();
        assertThat(job.fencingToken()).isZero();
        assertThat(job.timestamp()).isBetween(before, after);
        assertThat(job.processedOn()).isNull();
        assertThat(job.finishedOn()).isNull();
        assertThat(waitList()).containsExactly(added.jobId());
    }

    @Test
    void storesNoTraceContextWhileTracingIsOff() {
        // Tracing is off by default (quarkus.otel.sdk.disabled=true), even under a caller's traceparent: Quarkus still
        // builds an SDK then, whose spans must not reach the jobs.
        String jobId = io.restassured.RestAssured.given().header("traceparent",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").contentType("application/json")
                .body(Map.of("query", "untraced")).post("/research/start").then().statusCode(202).extract().path("jobId");
        AddResult added = add("report", Map.of("query", "q1"), JobOptions.defaults());

        for (Job job : java.util.List.of(redis.job(queues.queue("deep-research"), jobId), redis.job(queue, added.jobId()))) {
            assertThat(job.traceParent()).as("the hash of %s", job.id()).isNull();
        }
        io.restassured.RestAssured.given().get("/research/status/" + jobId).then().statusCode(200)
                .body("traceId", org.hamcrest.Matchers.nullValue());
        io.restassured.RestAssured.given().post("/research/abort/" + jobId);
    }

    @Test
    void numbersJobsWithoutCallerChosenId() {
        String first = add("a", null, JobOptions.defaults()).jobId();
        String second = add("b", null, JobOptions.defaults()).jobId();

        assertThat(Long.parseLong(second)).isGreaterThan(Long.parseLong(first));
        assertThat(waitList()).containsExactly(second, first);
    }

    @Test
    void addingExistingJobIdReturnsExistingJobUnchanged() {
        AddResult first = add("report", Map.of("query", "original"), JobOptions.defaults().withJobId("fixed-1"));
        Job before = redis.job(queue, "fixed-1");

        AddResult second = add("other", Map.of("query", "replacement"),
                JobOptions.defaults().withJobId("fixed-1").withAttempts(5).withDelay(Duration.ofSeconds(10)));

        assertThat(first).isEqualTo(new AddResult("fixed-1", true, false));
        assertThat(second).isEqualTo(new AddResult("fixed-1", false, false));
        assertThat(redis.job(queue, "fixed-1")).isEqualTo(before);
        assertThat(waitList()).containsExactly("fixed-1");
        assertThat(redis.delayedDue(queue, "fixed-1")).isNull();
    }

    @Test
    void idempotencyKeyReturnsSameJobWithinTtlAndNewJobAfterIt() {
        JobOptions options = JobOptions.defaults().withIdempotencyKey("order-42", Duration.ofMillis(300));
        String idempotencyKey = queue.keys().prefix() + "idempotency:order-42";

        AddResult first = add("report", Map.of("query", "q"), options);
        AddResult repeated = add("report", Map.of("query", "q"), options);

        assertThat(first.created()).isTrue();
        assertThat(repeated).isEqualTo(new AddResult(first.jobId(), false, false));
        assertThat(redis.send(Request.cmd(Command.PTTL).arg(idempotencyKey)).toLong()).isBetween(1L, 300L);

        await().atMost(TIMEOUT).until(() -> redis.send(Request.cmd(Command.EXISTS).arg(idempotencyKey)).toInteger() == 0);
        AddResult afterTtl = add("report", Map.of("query", "q"), options);

        assertThat(afterTtl.created()).isTrue();
        assertThat(afterTtl.jobId()).isNotEqualTo(first.jobId());
        assertThat(waitList()).containsExactly(afterTtl.jobId(), first.jobId());
    }

    @Test
    void idempotencyKeyOutlivesRemovalOfItsJob() {
        JobOptions options = JobOptions.defaults().withIdempotencyKey("order-43", Duration.ofHours(1));
        String jobId = add("report", Map.of("query", "q"), options).jobId();
        redis.send(Request.cmd(Command.DEL).arg(queue.keys().job(jobId)));

        AddResult again = add("report", Map.of("query", "q"), options);

        assertThat(again).isEqualTo(new AddResult(jobId, false, false));
        assertThat(redis.job(queue, jobId)).isNull();
    }

    @Test
    void refusesAnIdempotencyKeyReusedForAnotherRequestAndAddsNothing() {
        JobOptions options = JobOptions.defaults().withIdempotencyKey("order-44", Duration.ofHours(1));
        String jobId = add("report", Map.of("query", "q"), options).jobId();

        for (ThrowingCallable other : List.<ThrowingCallable>of(() -> add("report", Map.of("query", "other"), options),
                () -> add("summary", Map.of("query", "q"), options))) {
            assertThatThrownBy(other).isInstanceOf(IdempotencyKeyReusedException.class)
                    .hasMessageContaining("job `" + jobId + "`");
        }
        assertThat(add("report", Map.of("query", "q"), options)).isEqualTo(new AddResult(jobId, false, false));
        assertThat(waitList()).containsExactly(jobId);
    }

    /** A key written before fingerprints were stored holds the job id alone: it matches any request. */
    @Test
    void anIdempotencyKeyOfAnOlderVersionMatchesAnyRequest() {
        String key = queue.keys().prefix() + "idempotency:order-45";
        redis.send(Request.cmd(Command.SET).arg(key).arg("legacy-7").arg("PX").arg(3_600_000));

        AddResult again = add("report", Map.of("query", "anything"),
                JobOptions.defaults().withIdempotencyKey("order-45", Duration.ofHours(1)));

        assertThat(again).isEqualTo(new AddResult("legacy-7", false, false));
        assertThat(waitList()).isEmpty();
    }

    @Test
    void getJobOfUnknownOrInvalidIdIsNull() {
        assertThat(redis.job(queue, "no-such-job")).isNull();
        assertThat(redis.job(queue, "not a valid id")).isNull();
        assertThatThrownBy(() -> queue.requireJob("no-such-job").await().atMost(TIMEOUT))
                .isInstanceOf(JobNotFoundException.class).hasMessageContaining("no-such-job");
    }

    @Test
    void rejectsInvalidArgumentsNamingTheField() {
        JobOptions defaults = JobOptions.defaults();
        assertInvalid(() -> defaults.withJobId("has space"), "`jobId`");
        assertInvalid(() -> defaults.withJobId(""), "`jobId`");
        assertInvalid(() -> defaults.withJobId("x".repeat(129)), "`jobId`");
        assertInvalid(() -> defaults.withAttempts(0), "`attempts`");
        assertInvalid(() -> defaults.withBackoff(null), "`backoff`");
        assertInvalid(() -> defaults.withDelay(Duration.ofMillis(-1)), "`delay`");
        assertInvalid(() -> defaults.withPriority(-1), "`priority`");
        assertInvalid(() -> defaults.withPriority(JobOptions.MAX_PRIORITY + 1), "`priority`");
        assertInvalid(() -> defaults.withIdempotencyKey(" ", Duration.ofMinutes(1)), "`idempotencyKey`");
        assertInvalid(() -> defaults.withIdempotencyKey("k", Duration.ZERO), "`idempotencyTtl`");
        assertInvalid(() -> new Backoff(Backoff.Type.FIXED, Duration.ofSeconds(1), 1.5), "`backoff.jitter`");
        assertInvalid(() -> Backoff.fixed(Duration.ofSeconds(-1)), "`backoff.delay`");
        assertInvalid(() -> queue.add(" ", null, defaults), "`name`");
        assertInvalid(() -> queue.add("report", null, null), "`options`");
        assertInvalid(() -> queues.queue("bad name{}"), "`queue`");
        assertThat(waitList()).isEmpty();
    }

    @Test
    void delayedJobGoesToDelayedStateUntilItsDueTime() {
        AddResult added = add("later", null, JobOptions.defaults().withDelay(Duration.ofSeconds(30)));

        Job job = redis.job(queue, added.jobId());
        assertThat(job.state()).isEqualTo(JobState.DELAYED);
        assertThat(redis.delayedDue(queue, added.jobId())).isEqualTo(job.timestamp() + 30_000);
        assertThat(waitList()).isEmpty();
    }

    @Test
    void prioritizedJobGoesToPrioritizedSet() {
        AddResult added = add("urgent", null, JobOptions.defaults().withPriority(1));

        assertThat(redis.job(queue, added.jobId()).state()).isEqualTo(JobState.PRIORITIZED);
        assertThat(redis.send(Request.cmd(Command.ZSCORE).arg(queue.keys().prioritized()).arg(added.jobId()))).isNotNull();
        assertThat(waitList()).isEmpty();
    }

    @Test
    void abortingWaitingJobEndsItWithOneAbortedEventAndSecondAbortIsRefused() {
        String jobId = add("report", null, JobOptions.defaults()).jobId();

        AbortResult result = queue.abort(jobId, "user changed their mind").await().atMost(TIMEOUT);

        assertThat(result).isEqualTo(new AbortResult(jobId, JobState.WAITING));
        assertThat(result.wasRunning()).isFalse();
        Job job = redis.job(queue, jobId);
        assertThat(job.state()).isEqualTo(JobState.ABORTED);
        assertThat(job.failedReason()).isEqualTo("user changed their mind");
        assertThat(waitList()).isEmpty();
        assertThat(redis.events(queue, jobId)).extracting(JobEvent::type).containsExactly("aborted");
        assertThatThrownBy(() -> queue.abort(jobId, "again").await().atMost(TIMEOUT))
                .isInstanceOf(JobFinishedException.class);
        assertThat(redis.events(queue, jobId)).hasSize(1);
    }

    @Test
    void lookupOfAQueueNotInUseHereGivesAViewThatIsNotKept() {
        String name = "looked-up-" + System.nanoTime();

        assertThat(queues.lookup(name)).as("a fresh view each time").isNotSameAs(queues.lookup(name));
        assertThat(queues.lookup(name).keys()).isEqualTo(queues.keys(name));
        JobQueue inUse = queues.queue(name);
        assertThat(queues.lookup(name)).as("the shared view once the queue is in use").isSameAs(inUse);
        assertThatThrownBy(() -> queues.lookup("bad name")).isInstanceOf(IllegalArgumentException.class);
    }

    private AddResult add(String name, Object data, JobOptions options) {
        return queue.add(name, data, options).await().atMost(TIMEOUT);
    }

    private List<String> waitList() {
        return Replies.elements(redis.send(Request.cmd(Command.LRANGE).arg(queue.keys().waitList()).arg(0).arg(-1)))
                .stream().map(Object::toString).toList();
    }

    private static void assertInvalid(ThrowingCallable call, String field) {
        assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(field);
    }
}
