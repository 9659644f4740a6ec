package dev.fencedqueue.api.admin;

import static dev.fencedqueue.api.admin.AdminApi.admin;
import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import java.time.Duration;
import java.util.List;

import dev.fencedqueue.archive.Archiver;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.testing.PostgresTestResource;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.UnrecoverableJobException;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator API on finished jobs that moved to the archive (PostgreSQL): a page of completed or failed jobs reads
 * Redis's newest first and goes on into the archive's, the total and the queue's counts count both, an archived job
 * reads as one Redis holds (marked {@code archived}), and every action on it is refused with 409, saying why.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@WithTestResource(value = PostgresTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class AdminArchivedJobsTest extends QueueTestSupport {

    @Inject
    Archiver archiver;

    private String jobs;

    @BeforeEach
    void queuePath() {
        jobs = "/admin/queues/" + queue.name() + "/jobs";
    }

    @Test
    void pagesThroughRedisFinishedJobsThenTheArchivesWithATotalOfBoth() {
        startWorker();
        finish("job-1", "job-2", "job-3");
        moveFinishedJobsToTheArchive();
        finish("job-4", "job-5");

        admin().get(jobs + "?state=completed&start=0&count=2").then().statusCode(200).contentType(ContentType.JSON)
                .body("total", equalTo(5)).body("archived", equalTo(3))
                .body("jobs.jobId", contains("job-5", "job-4")).body("jobs.archived", contains(nullValue(), nullValue()));
        admin().get(jobs + "?state=completed&start=1&count=3").then().statusCode(200)
                .body("total", equalTo(5)).body("jobs.jobId", contains("job-4", "job-3", "job-2"))
                .body("jobs.archived", contains(nullValue(), equalTo(true), equalTo(true)))
                .body("jobs.state", contains("completed", "completed", "completed"));
        admin().get(jobs + "?state=completed&start=4&count=10").then().statusCode(200)
                .body("jobs.jobId", contains("job-1"));
        admin().get(jobs + "?state=completed&start=5").then().statusCode(200).body("jobs.size()", equalTo(0))
                .body("total", equalTo(5));

        admin().get("/admin/queues/" + queue.name()).then().statusCode(200)
                .body("counts.completed", equalTo(5)).body("archive.completed", equalTo(3))
                .body("archive.failed", equalTo(0));
    }

    @Test
    void listsArchivedFailedAndAbortedJobsWithTheFailedOnes() {
        startWorker();
        String aborted = add(JobOptions.defaults().withDelay(Duration.ofHours(1)));
        admin().post(jobs + "/" + aborted + "/abort").then().statusCode(200);
        finish("fail-1");
        moveFinishedJobsToTheArchive();

        admin().get(jobs + "?state=failed").then().statusCode(200).body("total", equalTo(2))
                .body("archived", equalTo(2)).body("jobs.jobId", contains("fail-1", aborted))
                .body("jobs.state", contains("failed", "aborted")).body("jobs.archived", contains(true, true));
        admin().get(jobs + "?state=completed").then().statusCode(200).body("total", equalTo(0));
        admin().get("/admin/queues/" + queue.name()).then().body("counts.failed", equalTo(2))
                .body("archive.failed", equalTo(2));
    }

    @Test
    void readsAnArchivedJobAndRefusesEveryActionOnItSayingItWasArchived() {
        startWorker();
        finish("job-1");
        String stillInRedis = "job-2";
        finish(stillInRedis);
        moveFinishedJobsToTheArchive();
        assertThat(redis.exists(queue.keys().job("job-1"))).as("gone from Redis").isFalse();

        admin().get(jobs + "/job-1").then().statusCode(200).body("jobId", equalTo("job-1"))
                .body("state", equalTo("completed")).body("result", equalTo("done job-1"))
                .body("archived", equalTo(true));
        admin().get(jobs + "/job-1/events").then().statusCode(200).body("event", contains("started", "completed"));
        for (var request : List.of(admin().post(jobs + "/job-1/retry"), admin().delete(jobs + "/job-1"))) {
            request.then().statusCode(409).contentType(ContentType.JSON).body("error", equalTo("conflict"))
                    .body("message", containsString("job `job-1`")).body("message", containsString("was archived"));
        }
        admin().post(jobs + "/job-1/abort").then().statusCode(409).body("message", containsString("already ended"));
        admin().get(jobs + "/job-1").then().statusCode(200).body("archived", equalTo(true));
        admin().post(jobs + "/missing/retry").then().statusCode(404);
    }

    /** Adds jobs with these ids one after the other, each finished before the next is added: newest last. */
    private void finish(String... ids) {
        for (String id : ids) {
            add(JobOptions.defaults().withJobId(id).withEventStream(true));
            awaitJob(id, job -> job.state().isTerminal());
        }
    }

    /** Moves every finished job of the queues this service processes (the test's among them) to the archive now. */
    private void moveFinishedJobsToTheArchive() {
        assertThat(archiver.round(Duration.ZERO).await().atMost(TIMEOUT)).as("jobs moved").isPositive();
    }

    /** Completes jobs with {@code done <id>}, fails those whose id starts with {@code fail}. */
    private void startWorker() {
        workers.start(ProbeProcessor.of(queue.name(), context -> context.jobId().startsWith("fail")
                ? Uni.createFrom().failure(new UnrecoverableJobException("told to fail"))
                : Uni.createFrom().item("done " + context.jobId())), TestWorkers.options("w-admin-archive").build());
    }
}
