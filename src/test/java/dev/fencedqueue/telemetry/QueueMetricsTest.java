package dev.fencedqueue.telemetry;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static dev.fencedqueue.worker.WorkerTestAccess.freeze;
import static dev.fencedqueue.worker.WorkerTestAccess.thaw;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.ProbeProcessor;
import dev.fencedqueue.testing.QueueTestSupport;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.testing.TestWorkers;
import dev.fencedqueue.worker.UnrecoverableJobException;
import dev.fencedqueue.worker.Worker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The queue gauges read from Redis ({@code fq_queue_jobs}, {@code fq_queue_oldest_waiting_age_seconds}), the wait and
 * processing time histograms and the stalled jobs counter, checked against the queue's real state after a known
 * sequence of jobs.
 */
@QuarkusTest
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
class QueueMetricsTest extends QueueTestSupport {

    @Inject
    MeterRegistry registry;

    @Test
    void publishesTheQueuesJobsByStateAndHowLongItsOldestReadyJobWaited() {
        ProbeProcessor held = ProbeProcessor.held(queue.name());
        workers.start(held, TestWorkers.options("w").concurrency(1).build());
        add();
        awaitAttempt(held, 0);
        add();
        add();
        add(JobOptions.defaults().withDelay(Duration.ofHours(1)));
        add(JobOptions.defaults().withPriority(5));

        awaitCounts(Map.of(JobState.ACTIVE, 1L, JobState.WAITING, 2L, JobState.DELAYED, 1L, JobState.PRIORITIZED, 1L,
                JobState.COMPLETED, 0L, JobState.FAILED, 0L, JobState.WAITING_CHILDREN, 0L, JobState.PAUSED, 0L));
        double age = await().atMost(TIMEOUT).until(this::oldestWaitingAge, seconds -> seconds > 0);
        await("the age grows while the jobs wait").atMost(TIMEOUT).until(this::oldestWaitingAge, seconds -> seconds > age);
        String scraped = given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(scraped).contains("fq_queue_jobs{queue=\"" + queue.name() + "\",state=\"waiting\"} 2.0")
                .contains("fq_queue_oldest_waiting_age_seconds{queue=\"" + queue.name() + "\"}");

        held.attempt(0).fail(new UnrecoverableJobException("refused"));
        for (int i = 1; i <= 3; i++) {
            awaitAttempt(held, i).complete("done");
        }
        awaitCounts(Map.of(JobState.ACTIVE, 0L, JobState.WAITING, 0L, JobState.DELAYED, 1L, JobState.PRIORITIZED, 0L,
                JobState.COMPLETED, 3L, JobState.FAILED, 1L));
        await("nothing waits").atMost(TIMEOUT).until(this::oldestWaitingAge, seconds -> seconds == 0);

        assertThat(timer("fq.job.wait", null).count()).as("each started job's wait, once").isEqualTo(4);
        assertThat(timer("fq.job.processing", "result").count()).isEqualTo(3);
        assertThat(timer("fq.job.processing", "failed").count()).isEqualTo(1);
        assertThat(timer("fq.job.wait", null).max(TimeUnit.MILLISECONDS)).as("the jobs that waited for the first")
                .isPositive();
        assertThat(given().get("/q/metrics").then().extract().asString())
                .contains("fq_job_wait_seconds_count{queue=\"" + queue.name() + "\"} 4")
                .contains("fq_job_processing_seconds_bucket{outcome=\"result\",queue=\"" + queue.name() + "\",le=");
    }

    private Timer timer(String name, String outcome) {
        var search = registry.find(name).tag("queue", queue.name());
        Timer timer = (outcome == null ? search : search.tag("outcome", outcome)).timer();
        assertThat(timer).as(name + " " + outcome).isNotNull();
        return timer;
    }

    @Test
    void countsAJobFoundStalledOnce() {
        ProbeProcessor held = ProbeProcessor.held(queue.name());
        Worker workerA = workers.start(held, TestWorkers.options("worker-A").concurrency(1)
                .stalledCheck(Duration.ofMillis(500), 1).build());
        add();
        awaitAttempt(held, 0);

        freeze(workerA);
        await("the job is taken back").atMost(TIMEOUT).until(() -> stalled() >= 1);
        thaw(workerA);
        await().atMost(TIMEOUT).until(() -> held.started() == 2);
        assertThat(stalled()).as("one stall, counted once").isEqualTo(1);
        assertThat(given().get("/q/metrics").then().extract().asString())
                .contains("fq_jobs_stalled_total{queue=\"" + queue.name() + "\",worker=\"worker-A\"} 1.0");
    }

    private void awaitCounts(Map<JobState, Long> expected) {
        await("the gauges show " + expected).atMost(TIMEOUT).untilAsserted(() -> expected.forEach((state, count) ->
                assertThat(jobs(state)).as(state.value()).isEqualTo(count.doubleValue())));
    }

    private double jobs(JobState state) {
        Gauge gauge = registry.find("fq.queue.jobs").tag("queue", queue.name()).tag("state", state.value()).gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    private double oldestWaitingAge() {
        Gauge gauge = registry.find("fq.queue.oldest.waiting.age").tag("queue", queue.name()).gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    private double stalled() {
        return registry.find("fq.jobs.stalled").tag("queue", queue.name()).functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
    }
}
