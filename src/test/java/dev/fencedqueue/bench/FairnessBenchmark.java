package dev.fencedqueue.bench;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.TenantIds;
import dev.fencedqueue.tenancy.TenantSettings;
import dev.fencedqueue.tenancy.Tenants;
import dev.fencedqueue.research.LlmTokens;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fair dispatch between tenants, beside plain FIFO on the same Redis (not a test:
 * {@code ./mvnw -Pbench test -Dtest=FairnessBenchmark}; see BENCHMARKS.md). Four figures, {@code -Dbench.figures}
 * picks some ({@code isolation,weights,cost,overhead}), each measured {@code bench.runs} times (1 by default):
 * <ul>
 * <li><b>isolation</b>: tenant A adds {@code bench.isolation.jobs} (2,000) jobs of 200 ms, tenants B and C add one job
 * every 500 ms for {@code bench.isolation.seconds} (15), one worker of concurrency 8: B's and C's add-to-start p99
 * (Redis clock: {@code processedOn - timestamp}), target at most one job's duration plus 50 ms; and the same with every
 * job in tenant {@code default} (FIFO);</li>
 * <li><b>weights</b>: A (weight 3) and B (weight 1) both backlogged with jobs of 50 ms: A's share of the slot time
 * while both had jobs waiting, target 75 % within 5 points;</li>
 * <li><b>cost</b>: A's jobs spend 10 times B's LLM tokens (1,000 against 100, and last 10 times longer), weights
 * equal, the queue charging tokens: A's share of the tokens while both had jobs waiting, target 50 % within 10
 * points (FIFO's job-count fairness would give A 91 %);</li>
 * <li><b>overhead</b>: no-op jobs per second, concurrency 50, with the jobs spread over 1,000 tenants, against the
 * same queue without tenants, interleaved, after one unrecorded round of both: target a ratio of at least 0.9; and
 * beside it the Redis commands per job of each (Redis's {@code INFO commandstats}), which the machine's load does not
 * move, Redis's CPU time per job ({@code INFO cpu}) and this JVM's ({@link BenchContext#jvmCpuMicros}): Redis's one
 * thread is the bound of this figure when its CPU time per job times the jobs a second comes near one second a
 * second.</li>
 * </ul>
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class FairnessBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 1);
    private static final Set<String> FIGURES = Set.of(System.getProperty("bench.figures",
            "isolation,weights,cost,overhead").split(","));
    private static final int ISOLATION_JOBS = Integer.getInteger("bench.isolation.jobs", 2_000);
    private static final int ISOLATION_SECONDS = Integer.getInteger("bench.isolation.seconds", 15);
    private static final int OVERHEAD_JOBS = Integer.getInteger("bench.jobs", 20_000);
    private static final int OVERHEAD_TENANTS = 1_000;
    private static final JobOptions KEPT = JobOptions.defaults().withEventStream(false);

    @Inject
    BenchContext bench;

    @Inject
    Tenants tenants;

    @Inject
    LlmTokens tokens;

    @Test
    void measuresFairDispatchBesideFifo() {
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("fairness_environment", Runtime.getRuntime().availableProcessors(), "cpus",
                "\"loadAvg1m\": " + BenchContext.loadAverage());
        report.describe("fairness_isolation_p99_ms", "\"target\": \"<= 250 (one job's 200 ms + 50)\"");
        report.describe("fairness_weights_share_a", "\"target\": \"75 +- 5 (weights 3:1)\"");
        report.describe("fairness_cost_token_share_a", "\"target\": \"50 +- 10 (A's jobs cost 10x B's)\"");
        report.describe("fairness_overhead_ratio", "\"target\": \">= 0.9\"");
        if (FIGURES.contains("overhead")) {
            throughput(OVERHEAD_TENANTS); // warm-up, not recorded: the JIT compiles both paths first
            throughput(0);
        }
        for (int run = 1; run <= RUNS; run++) {
            if (FIGURES.contains("overhead")) {
                overhead(report, run);
            }
            if (FIGURES.contains("isolation")) {
                isolation(report, run, true);
                isolation(report, run, false);
            }
            if (FIGURES.contains("weights")) {
                weights(report, run);
            }
            if (FIGURES.contains("cost")) {
                cost(report, run);
            }
        }
        report.medians();
    }

    private void isolation(BenchReport report, int run, boolean fair) {
        JobQueue queue = bench.freshQueue(fair ? "isolation" : "fifo");
        Pipeline.run(ISOLATION_JOBS, 500, i -> queue.add("a", null, KEPT.withTenant(fair ? "a" : TenantIds.DEFAULT)));
        Worker worker = bench.startWorker(BenchProcessor.of(queue.name(), context -> Uni.createFrom().item((Object) "ok")
                .onItem().delayIt().by(Duration.ofMillis(200))), 8);
        List<String> probes = new ArrayList<>();
        long end = System.nanoTime() + Duration.ofSeconds(ISOLATION_SECONDS).toNanos();
        while (System.nanoTime() < end) {
            for (String tenant : List.of("b", "c")) {
                probes.add(queue.add(tenant, null, KEPT.withTenant(fair ? tenant : TenantIds.DEFAULT))
                        .await().atMost(BenchContext.TIMEOUT).jobId());
            }
            await().pollDelay(Duration.ofMillis(500)).until(() -> true);
        }
        Samples waits = new Samples(probes.size());
        for (String id : probes) {
            Job job = await().atMost(Duration.ofSeconds(ISOLATION_JOBS / 8 * 200 / 1000 + 60))
                    .pollInterval(Duration.ofMillis(200)).until(() -> queue.getJob(id).await().atMost(BenchContext.TIMEOUT),
                            started -> started != null && started.processedOn() != null);
            waits.add((job.processedOn() - job.timestamp()) * 1_000_000L);
            if (Boolean.getBoolean("bench.debug")) {
                System.out.println("isolation fair=" + fair + " " + job.tenant() + " " + job.id() + " waited "
                        + (job.processedOn() - job.timestamp()) + " ms");
            }
        }
        bench.stop(worker);
        String fields = "\"fair\": " + fair + ", \"backlogA\": " + ISOLATION_JOBS + ", \"probes\": " + probes.size()
                + ", \"jobMs\": 200, \"concurrency\": 8";
        String metric = fair ? "fairness_isolation" : "fifo_isolation";
        report.record(metric + "_p50_ms", waits.percentileMillis(50), "ms", run, fields);
        report.record(metric + "_p99_ms", waits.percentileMillis(99), "ms", run, fields);
    }

    private void weights(BenchReport report, int run) {
        JobQueue queue = bench.freshQueue("weights");
        String heavy = "a-" + queue.name();
        tenants.put(heavy, new TenantSettings(3.0, null, null, null)).await().atMost(BenchContext.TIMEOUT);
        try {
            tenants.syncWeights(List.of(queue.name())).await().atMost(BenchContext.TIMEOUT);
            Map<String, Double> shares = backloggedShares(queue, heavy, "b", 400, 400, tenant -> 50L, null);
            report.record("fairness_weights_share_a", shares.get(heavy), "%", run, "\"weights\": \"3:1\", \"jobMs\": 50, "
                    + "\"concurrency\": 8, \"slotMsShareB\": " + BenchReport.number(shares.get("b")));
        } finally {
            tenants.remove(heavy).await().atMost(BenchContext.TIMEOUT);
        }
    }

    private void cost(BenchReport report, int run) {
        JobQueue queue = bench.freshQueue("cost");
        bench.redis().send(Request.cmd(Command.HSET).arg(queue.keys().meta()).arg("costUnit").arg("tokens"))
                .await().atMost(BenchContext.TIMEOUT);
        Map<String, Double> shares = backloggedShares(queue, "a", "b", 300, 3_000, tenant -> "a".equals(tenant) ? 100L
                : 10L, tenant -> "a".equals(tenant) ? 1_000L : 100L);
        report.record("fairness_cost_token_share_a", shares.get("a"), "%", run, "\"tokensPerJob\": \"1000:100\", "
                + "\"jobMs\": \"100:10\", \"concurrency\": 8, \"jobShareA\": " + BenchReport.number(shares.get("jobs")));
    }

    /**
     * Runs {@code countA} jobs of tenant {@code a} and {@code countB} of {@code b}, all added before the worker starts
     * (concurrency 8), and measures each tenant's share of the cost while both had jobs waiting (the jobs that started
     * before the first tenant's last one).
     *
     * @param millis each tenant's job duration, ms
     * @param tokensPerJob each tenant's LLM tokens per job, reported at its end, or {@code null} to measure slot time
     * @return the share of {@code a} and of {@code b} (%), and {@code jobs}: a's share of the jobs (%)
     */
    private Map<String, Double> backloggedShares(JobQueue queue, String a, String b, int countA, int countB,
            java.util.function.Function<String, Long> millis, java.util.function.Function<String, Long> tokensPerJob) {
        Pipeline.run(countA, 500, i -> queue.add(a, null, KEPT.withTenant(a)));
        Pipeline.run(countB, 500, i -> queue.add(b, null, KEPT.withTenant(b)));
        Map<String, Long> spent = new ConcurrentHashMap<>();
        Worker worker = bench.startWorker(BenchProcessor.of(queue.name(), context -> {
            String tenant = context.job().tenant();
            Uni<Object> done = Uni.createFrom().item((Object) "ok").onItem().delayIt()
                    .by(Duration.ofMillis(millis.apply(tenant)));
            if (tokensPerJob == null) {
                return done;
            }
            long used = tokensPerJob.apply(tenant);
            spent.merge(tenant, used, Long::sum);
            return done.call(() -> tokens.record(queue.name(), context.jobId(), context.fencingToken(),
                    new LlmTokens.Attempt("result", 0, used, 0, 0, null)));
        }), 8);
        BenchContext.awaitCompleted(worker, countA + countB);
        bench.stop(worker);
        List<Job> jobs = new ArrayList<>();
        for (int page = 0;; page++) {
            List<Job> batch = queue.getJobs(JobState.COMPLETED, page * 1000, 1000)
                    .await().atMost(BenchContext.TIMEOUT);
            if (batch.isEmpty()) {
                break;
            }
            jobs.addAll(batch);
        }
        Map<String, Long> lastStart = new HashMap<>();
        jobs.forEach(job -> lastStart.merge(job.tenant(), job.processedOn(), Math::max));
        long window = Math.min(lastStart.get(a), lastStart.get(b));
        Map<String, Double> cost = new HashMap<>();
        Map<String, Integer> count = new HashMap<>();
        for (Job job : jobs) {
            if (job.processedOn() <= window) {
                double unit = tokensPerJob == null ? job.finishedOn() - job.processedOn() : tokensPerJob.apply(job.tenant());
                cost.merge(job.tenant(), unit, Double::sum);
                count.merge(job.tenant(), 1, Integer::sum);
            }
        }
        double total = cost.get(a) + cost.get(b);
        return Map.of(a, 100 * cost.get(a) / total, b, 100 * cost.get(b) / total, "jobs",
                100.0 * count.get(a) / (count.get(a) + count.get(b)));
    }

    private void overhead(BenchReport report, int run) {
        Phase plain = throughput(0);
        Phase tenanted = throughput(OVERHEAD_TENANTS);
        String fields = "\"jobs\": " + OVERHEAD_JOBS + ", \"concurrency\": 50, \"tenants\": " + OVERHEAD_TENANTS;
        report.record("fairness_overhead_plain_jobs_per_second", plain.jobsPerSecond(), "jobs/s", run, fields);
        report.record("fairness_overhead_tenants_jobs_per_second", tenanted.jobsPerSecond(), "jobs/s", run, fields);
        report.record("fairness_overhead_ratio", tenanted.jobsPerSecond() / plain.jobsPerSecond(), "x", run, fields);
        report.record("fairness_overhead_plain_redis_commands_per_job", plain.commandsPerJob(), "commands", run, fields);
        report.record("fairness_overhead_tenants_redis_commands_per_job", tenanted.commandsPerJob(), "commands", run,
                fields);
        report.record("fairness_overhead_plain_redis_cpu_us_per_job", plain.redisCpuMicrosPerJob(), "us", run, fields);
        report.record("fairness_overhead_tenants_redis_cpu_us_per_job", tenanted.redisCpuMicrosPerJob(), "us", run,
                fields);
        report.record("fairness_overhead_plain_jvm_cpu_us_per_job", plain.jvmCpuMicrosPerJob(), "us", run, fields);
        report.record("fairness_overhead_tenants_jvm_cpu_us_per_job", tenanted.jvmCpuMicrosPerJob(), "us", run, fields);
    }

    /**
     * One processing phase of the overhead figure.
     *
     * @param jobsPerSecond no-op jobs completed per second
     * @param commandsPerJob Redis commands per job in the phase ({@link CommandStats#commandsPerJob})
     * @param redisCpuMicrosPerJob Redis's CPU time (user + system) per job in the phase, µs
     * @param jvmCpuMicrosPerJob the benchmark JVM's CPU time (user + system, all its threads: the worker, the event
     *         loops, the benchmark's own waiting) per job in the phase, µs
     */
    private record Phase(double jobsPerSecond, double commandsPerJob, double redisCpuMicrosPerJob,
            double jvmCpuMicrosPerJob) {
    }

    /** @return no-op jobs at concurrency 50, the jobs spread over that many tenants (0: none): their rate and commands */
    private Phase throughput(int tenantCount) {
        JobQueue queue = bench.freshQueue("overhead");
        Pipeline.run(OVERHEAD_JOBS, 500, i -> queue.add("noop", null, tenantCount == 0 ? BenchContext.NOOP_JOB
                : BenchContext.NOOP_JOB.withTenant("t" + (i % tenantCount))));
        BenchContext.awaitQuietJvm();
        bench.resetCommandStats();
        long cpuBefore = bench.redisCpuMicros();
        long jvmCpuBefore = BenchContext.jvmCpuMicros();
        long start = System.nanoTime();
        Worker worker = bench.startWorker(BenchProcessor.noop(queue.name()), 50);
        long end = BenchContext.awaitCompleted(worker, OVERHEAD_JOBS);
        long cpu = bench.redisCpuMicros() - cpuBefore;
        long jvmCpu = BenchContext.jvmCpuMicros() - jvmCpuBefore;
        String commandStats = bench.commandStats();
        if (ThroughputFigure.COMMAND_STATS) {
            System.out.println("commandstats, " + tenantCount + " tenants:\n" + commandStats);
        }
        bench.stop(worker);
        return new Phase(OVERHEAD_JOBS / ((end - start) / 1e9),
                CommandStats.parse(commandStats).commandsPerJob(OVERHEAD_JOBS), (double) cpu / OVERHEAD_JOBS,
                (double) jvmCpu / OVERHEAD_JOBS);
    }
}
