package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator API on jobs: list by state with paging, read, abort, remove, retry. */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminJobsTest extends QueueTestSupport {

    private String jobs;

    @BeforeEach
    void queuePath() {
        jobs = "/admin/queues/" + queue.name() + "/jobs";
    }

    @Test
    void listsTheJobsOfAStateAPageAtATimeInTheOrderTheyWillRun() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(add(JobOptions.defaults()));
        }
        add(JobOptions.defaults().withDelay(Duration.ofHours(1)));

        admin().get(jobs + "?state=waiting&start=1&count=2").then().statusCode(200).contentType(ContentType.JSON)
                .body("queue", equalTo(queue.name())).body("state", equalTo("waiting"))
                .body("start", equalTo(1)).body("count", equalTo(2)).body("total", equalTo(5))
                .body("jobs.jobId", contains(ids.get(1), ids.get(2)));
        admin().get(jobs).then().statusCode(200).body("state", equalTo("waiting")).body("jobs.size()", equalTo(5));
        admin().get(jobs + "?state=delayed").then().statusCode(200).body("total", equalTo(1))
                .body("jobs[0].state", equalTo("delayed"));
        admin().get(jobs + "?state=completed&start=100").then().statusCode(200).body("jobs", empty());
    }

    @Test
    void rejectsABadStateStartOrCountNamingTheField() {
        admin().get(jobs + "?state=sleeping").then().statusCode(400).contentType(ContentType.JSON)
                .body("error", equalTo("bad_request")).body("field", equalTo("state"));
        admin().get(jobs + "?state=aborted").then().statusCode(400).body("field", equalTo("state"))
                .body("message", containsString("failed"));
        admin().get(jobs + "?start=-1").then().statusCode(400).body("field", equalTo("start"));
        admin().get(jobs + "?start=first").then().statusCode(400).body("field", equalTo("start"));
        admin().get(jobs + "?count=0").then().statusCode(400).body("field", equalTo("count"));
        admin().get(jobs + "?count=1001").then().statusCode(400).body("field", equalTo("count"));
    }

    @Test
    void showsOneJob() {
        String jobId = add(Map.of("n", 1), JobOptions.defaults().withAttempts(2));

        admin().get(jobs + "/" + jobId).then().statusCode(200).body("jobId", equalTo(jobId))
                .body("name", equalTo("job")).body("state", equalTo("waiting")).body("data.n", equalTo(1))
                .body("attempts", equalTo(2)).body("fencingToken", equalTo(0));
    }

    @Test
    void answers404ForAJobThatDoesNotExist() {
        for (var request : List.of(admin().get(jobs + "/missing"), admin().post(jobs + "/missing/abort"),
                admin().delete(jobs + "/missing"), admin().post(jobs + "/missing/retry"))) {
            request.then().statusCode(404).contentType(ContentType.JSON).body("error", equalTo("not_found"))
                    .body("message", containsString("missing"));
        }
    }

    @Test
    void abortsARunningJobAndItsWorkerStopsIt() {
        ProbeProcessor processor = startWorker();
        String jobId = add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);

        admin().post(jobs + "/" + jobId + "/abort").then().statusCode(200).body("state", equalTo("aborted"))
                .body("previousState", equalTo("active")).body("wasRunning", equalTo(true));

        await().atMost(TIMEOUT).until(() -> processor.attempt(0).isCancelled());
        admin().get(jobs + "/" + jobId).then().body("state", equalTo("aborted"))
                .body("failedReason", equalTo("aborted by operator"));
        admin().post(jobs + "/" + jobId + "/abort").then().statusCode(409).body("error", equalTo("conflict"));
    }

    @Test
    void refusesToRemoveARunningJob() {
        ProbeProcessor processor = startWorker();
        String jobId = add(JobOptions.defaults());
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);

        admin().delete(jobs + "/" + jobId).then().statusCode(409).contentType(ContentType.JSON)
                .body("error", equalTo("conflict")).body("message", containsString("running"));
        admin().get(jobs + "/" + jobId).then().statusCode(200).body("state", equalTo("active"));
        assertThat(processor.attempt(0).isCancelled()).isFalse();
    }

    @Test
    void removesAJobWithAllItsKeys() {
        String jobId = add(JobOptions.defaults());

        admin().delete(jobs + "/" + jobId).then().statusCode(200).body("jobId", equalTo(jobId))
                .body("previousState", equalTo("waiting"));
        admin().get(jobs + "/" + jobId).then().statusCode(404);
        assertThat(redis.job(queue, jobId)).isNull();
        admin().get(jobs + "?state=waiting").then().body("total", equalTo(0));
    }

    @Test
    void retriesAFailedJobWithAFreshCountOfAttempts() {
        ProbeProcessor processor = startWorker();
        String jobId = add(JobOptions.defaults().withAttempts(1));
        await().atMost(TIMEOUT).until(() -> processor.started() == 1);
        processor.attempt(0).fail(new IllegalStateException("upstream broke"));
        await().atMost(TIMEOUT).until(() -> redis.job(queue, jobId).state() == JobState.FAILED);
        admin().get(jobs + "?state=failed").then().body("jobs.jobId", contains(jobId));

        admin().post(jobs + "/" + jobId + "/retry").then().statusCode(200).body("jobId", equalTo(jobId))
                .body("attemptsMade", equalTo(0));

        await().atMost(TIMEOUT).until(() -> processor.started() == 2);
        assertThat(processor.attempt(1).fencingToken()).as("a new epoch")
                .isGreaterThan(processor.attempt(0).fencingToken());
        admin().get(jobs + "/" + jobId).then().body("state", equalTo("active"));
    }

    @Test
    void refusesToRetryAJobThatHasNotFailed() {
        String waiting = add(JobOptions.defaults());
        String aborted = add(JobOptions.defaults());
        admin().post(jobs + "/" + aborted + "/abort").then().statusCode(200);

        admin().post(jobs + "/" + waiting + "/retry").then().statusCode(409).body("error", equalTo("conflict"));
        admin().post(jobs + "/" + aborted + "/retry").then().statusCode(409).body("error", equalTo("conflict"));
        admin().get(jobs + "/" + aborted).then().body("state", equalTo("aborted"));
    }

    private ProbeProcessor startWorker() {
        ProbeProcessor processor = ProbeProcessor.held(queue.name());
        workers.start(processor, TestWorkers.options("w-admin-jobs").drainDelay(Duration.ofSeconds(2)).build());
        return processor;
    }
}
