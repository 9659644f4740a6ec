package dev.fencedqueue.bench;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.scheduler.JobSchedulers;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How late scheduled jobs are (not a test: {@code ./mvnw -Pbench test -Dtest=SchedulerBenchmark}; see BENCHMARKS.md):
 * 1,000 job schedulers ticking every second on one queue, one worker (concurrency 50, a no-op processor) in this JVM
 * producing and running their jobs for {@code bench.seconds} (20 by default). Per job: how late it was produced
 * ({@code timestamp - tick}) and how late it started ({@code processedOn - tick}), p50 and p99, the first 3 s of ticks
 * left out (warm-up); beside pipelined {@code PING}s per second (the ceiling).
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class SchedulerBenchmark {

    private static final int SCHEDULERS = Integer.getInteger("bench.schedulers", 1_000);
    private static final int SECONDS = Integer.getInteger("bench.seconds", 20);
    private static final long WARM_UP_MS = 3_000;

    @Inject
    BenchContext bench;

    @Inject
    ObjectMapper json;

    @Inject
    JobSchedulers schedulers;

    @Test
    void measuresHowLateScheduledJobsStart() {
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("scheduler_environment", Runtime.getRuntime().availableProcessors(), "cpus",
                "\"schedulers\": " + SCHEDULERS + ", \"everyMs\": 1000, \"seconds\": " + SECONDS + ", \"loadAvg1m\": "
                        + BenchContext.loadAverage());
        double ping = RedisCeiling.ping(bench, 100_000);
        JobQueue queue = bench.freshQueue("schedulers");
        Worker worker = bench.startWorker(BenchProcessor.noop(queue.name()), 50);
        long start = redisTime();
        List<String> ids = new ArrayList<>(SCHEDULERS);
        for (int i = 0; i < SCHEDULERS; i++) {
            String id = queue.name() + "-" + i;
            ids.add(id);
            schedulers.upsert(id, json.valueToTree(Map.of("every", 1000, "template",
                    Map.of("queue", queue.name(), "name", "tick", "options", Map.of("eventStream", false)))))
                    .await().atMost(BenchContext.TIMEOUT);
        }
        await().atMost(Duration.ofSeconds(SECONDS + 30)).pollInterval(Duration.ofMillis(200))
                .until(() -> redisTime() > start + SECONDS * 1000L);
        for (String id : ids) {
            schedulers.remove(id).await().atMost(BenchContext.TIMEOUT);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> queue.getJobCounts().await().atMost(BenchContext.TIMEOUT)
                .entrySet().stream().filter(e -> e.getKey() != JobState.COMPLETED).mapToLong(Map.Entry::getValue)
                .sum() == 0);
        bench.stop(worker);

        List<Long> produced = new ArrayList<>();
        List<Long> started = new ArrayList<>();
        long jobs = 0;
        for (int page = 0;; page++) {
            List<Job> batch = queue.getJobs(JobState.COMPLETED, page * 1000, 1000).await().atMost(BenchContext.TIMEOUT);
            if (batch.isEmpty()) {
                break;
            }
            for (Job job : batch) {
                jobs++;
                if (job.tick() != null && job.tick() >= start + WARM_UP_MS) {
                    produced.add(job.timestamp() - job.tick());
                    started.add(job.processedOn() - job.tick());
                }
            }
        }
        report.record("scheduler_ceiling_pings_per_second", ping, "ops/s", 1, "");
        report.record("scheduler_jobs", jobs, "jobs", 1, "\"expectedAbout\": " + (long) SCHEDULERS * SECONDS);
        report.record("scheduler_produced_late_ms_p50", percentile(produced, 50), "ms", 1, "");
        report.record("scheduler_produced_late_ms_p99", percentile(produced, 99), "ms", 1, "");
        report.record("scheduler_started_late_ms_p50", percentile(started, 50), "ms", 1, "");
        report.record("scheduler_started_late_ms_p99", percentile(started, 99), "ms", 1, "");
        report.medians();
    }

    private long redisTime() {
        return bench.redis().send(Request.cmd(Command.TIME)).map(t -> t.get(0).toLong() * 1000 + t.get(1).toLong() / 1000)
                .await().atMost(BenchContext.TIMEOUT);
    }

    private static double percentile(List<Long> values, int percent) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        long[] sorted = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        int index = Math.min(sorted.length - 1, (int) Math.ceil(percent / 100.0 * sorted.length) - 1);
        return sorted[Math.max(0, index)];
    }
}
