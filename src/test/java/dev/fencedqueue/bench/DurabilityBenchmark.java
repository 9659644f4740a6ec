package dev.fencedqueue.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.queue.AbortFollowUp;
import dev.fencedqueue.queue.JobAdder;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.RedisMemory;
import dev.fencedqueue.redis.RedisOptionsCapture;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.testing.RedisReplicatedResource;
import dev.fencedqueue.testing.RedisProcess;
import dev.fencedqueue.testing.RedisServers;
import dev.fencedqueue.testing.RedisTestResource;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What {@code fq.redis.wait.replicas=auto} (the default) costs against {@code 0}, on a master with one replica: the
 * time {@code JobQueue.add} takes (what a {@code POST /research/start} waits before its {@code 202}), one add at a
 * time, and the no-op jobs per second of a worker at concurrency 50 fed by 50 adds in flight. Both settings run in
 * this one JVM against the same Redis pair: the service's own beans ({@code auto}) and a second stack of the same
 * classes ({@link SharedConnection}, {@link LuaScripts}, {@link JobAdder} and {@link Queues}) configured with
 * {@code 0}; the jobs of both are processed by the service's workers. Each run measures both, in alternating order,
 * and records their ratio, so a noisy moment of the shared machine shows in one run rather than in one setting.
 * Beside the throughput it prints the CPU time per job of the master, the replica ({@code INFO cpu}) and this JVM,
 * and how many adds shared a {@code WAIT} (the master's {@code INFO commandstats}): where {@code auto} spends what it
 * costs. With {@code -Dbench.replica.realtime=true} the replica runs under {@code chrt -f 10} (SCHED_FIFO: it gets a
 * core the moment it has work, which needs root or {@code CAP_SYS_NICE}), which stands in for a replica on cores of
 * its own, as in production, on a machine where it shares two with the master and this JVM. Run it with
 * {@code ./mvnw -Pbench test -Dtest=DurabilityBenchmark} ({@code -Dbench.runs}, {@code -Dbench.jobs},
 * {@code -Dbench.samples}).
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisReplicatedResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
@Tag("benchmark")
class DurabilityBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 3);
    private static final int JOBS = Integer.getInteger("bench.jobs", 20_000);
    private static final int SAMPLES = Integer.getInteger("bench.samples", 2_000);
    private static final int IN_FLIGHT = 50;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final boolean REPLICA_REALTIME = Boolean.getBoolean("bench.replica.realtime");

    @Inject
    BenchContext bench;

    @Inject
    Vertx vertx;

    @Inject
    Redis defaultClient;

    @Inject
    RedisOptionsCapture options;

    @Inject
    RedisKeysConfig config;

    @Inject
    EventsConfig events;

    @Inject
    AbortFollowUp abortFollowUp;

    @Inject
    ObjectMapper json;

    @RedisTestResource.InjectRedis
    RedisReplicatedResource.Pair pair;

    @Test
    void measuresWhatWaitingForAReplicaCosts() {
        assertThat(config.waitFor().replicas()).as("the service runs with the default").hasToString("auto");
        await("the service sees the replica").atMost(Duration.ofSeconds(30))
                .until(() -> bench.redis().durability().get("replicas") == 1);
        if (REPLICA_REALTIME) {
            prioritize(pair.replica());
        }
        SharedConnection noWait = new SharedConnection(vertx, defaultClient, options, withoutWait(config));
        RedisMemory noWaitMemory = new RedisMemory(noWait, config, vertx);
        try {
            LuaScripts scripts = new LuaScripts(noWait, noWaitMemory);
            Queues queuesNoWait = new Queues(new JobAdder(scripts, json, JobTracing.noop(), JobArchive.NONE, events),
                    scripts, noWait, JobArchive.NONE, withoutWait(config), events, abortFollowUp);
            Setting auto = new Setting("auto", bench.queues());
            Setting zero = new Setting("wait0", queuesNoWait);
            BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
            report.note("durability_environment", Runtime.getRuntime().availableProcessors(), "cpus",
                    "\"redis\": \"" + RedisServers.version().split(" sha=")[0] + "\", \"replicas\": 1, \"jobs\": " + JOBS
                            + ", \"samples\": " + SAMPLES + ", \"inFlight\": " + IN_FLIGHT + ", \"replicaRealtime\": "
                            + REPLICA_REALTIME + ", \"loadAvg1m\": "
                            + BenchContext.loadAverage());
            round(null, 0, zero, auto, SAMPLES / 4, JOBS / 4);
            for (int run = 1; run <= RUNS; run++) {
                Setting first = run % 2 == 1 ? zero : auto;
                Setting second = first == zero ? auto : zero;
                round(report, run, first, second, SAMPLES, JOBS);
            }
            report.medians();
        } finally {
            noWaitMemory.close();
            noWait.close();
        }
    }

    /** Measures both settings once, {@code first} first, and records each figure and its ratio auto / wait0. */
    private void round(BenchReport report, int run, Setting first, Setting second, int samples, int jobs) {
        for (Setting setting : new Setting[] {first, second}) {
            setting.latency = addLatency(setting.queues, samples);
            long[] before = cpuMicros();
            long waitsBefore = waitCalls();
            setting.throughput = throughput(setting.queues, jobs);
            long[] after = cpuMicros();
            setting.waits = waitCalls() - waitsBefore;
            for (int i = 0; i < 3; i++) {
                setting.cpu[i] = (after[i] - before[i]) / (double) jobs;
            }
        }
        if (report == null) {
            return;
        }
        Setting auto = first.name.equals("auto") ? first : second;
        Setting zero = auto == first ? second : first;
        String fields = "\"order\": \"" + first.name + " then " + second.name + "\", \"loadAvg1m\": "
                + BenchContext.loadAverage();
        for (Setting setting : new Setting[] {zero, auto}) {
            report.record("add_ms_p50_" + setting.name, percentile(setting.latency, 50), "ms", run, fields);
            report.record("add_ms_p99_" + setting.name, percentile(setting.latency, 99), "ms", run, fields);
            report.record("noop_jobs_c50_" + setting.name, setting.throughput, "jobs/s", run, fields);
            report.record("master_cpu_us_per_job_" + setting.name, setting.cpu[0], "us/job", run, fields);
            report.record("replica_cpu_us_per_job_" + setting.name, setting.cpu[1], "us/job", run, fields);
            report.record("jvm_cpu_us_per_job_" + setting.name, setting.cpu[2], "us/job", run, fields);
        }
        report.record("add_ms_p50_auto_over_wait0", percentile(auto.latency, 50) / percentile(zero.latency, 50), "ratio",
                run, fields);
        report.record("add_ms_p99_auto_over_wait0", percentile(auto.latency, 99) / percentile(zero.latency, 99), "ratio",
                run, fields);
        report.record("noop_jobs_c50_auto_over_wait0", auto.throughput / zero.throughput, "ratio", run, fields);
        report.record("adds_per_wait_c50_auto", jobs / (double) Math.max(1, auto.waits), "adds", run, fields);
        System.out.printf(Locale.ROOT, "durability run %d (%s then %s): add p50 %.3f / %.3f ms (x%.2f), p99 %.3f / %.3f "
                + "ms (x%.2f), c50 %.0f / %.0f jobs/s (x%.2f), wait0 / auto%n", run, first.name, second.name,
                percentile(zero.latency, 50), percentile(auto.latency, 50),
                percentile(auto.latency, 50) / percentile(zero.latency, 50), percentile(zero.latency, 99),
                percentile(auto.latency, 99), percentile(auto.latency, 99) / percentile(zero.latency, 99),
                zero.throughput, auto.throughput, auto.throughput / zero.throughput);
        System.out.printf(Locale.ROOT, "durability run %d: CPU per job at c50, us, wait0 / auto: master %.1f / %.1f, "
                + "replica %.1f / %.1f, JVM %.1f / %.1f; %d adds, %d WAITs%n", run, zero.cpu[0], auto.cpu[0], zero.cpu[1],
                auto.cpu[1], zero.cpu[2], auto.cpu[2], jobs, auto.waits);
    }

    /** @return the time of each of {@code samples} adds made one after the other, ns, sorted */
    private long[] addLatency(Queues queues, int samples) {
        JobQueue queue = queues.queue(freshName("latency"));
        long[] nanos = new long[samples];
        for (int i = 0; i < samples; i++) {
            long start = System.nanoTime();
            queue.add("noop", null, BenchContext.NOOP_JOB).await().atMost(TIMEOUT);
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        return nanos;
    }

    /**
     * @return no-op jobs completed per second by a worker at concurrency 50 while {@value #IN_FLIGHT} adds are in
     *         flight, from the first add to the last completion
     */
    private double throughput(Queues queues, int jobs) {
        JobQueue queue = queues.queue(freshName("c50"));
        Worker worker = bench.startWorker(new Noop(queue.name()), 50);
        try {
            long start = System.nanoTime();
            Semaphore slots = new Semaphore(IN_FLIGHT);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int i = 0; i < jobs && failure.get() == null; i++) {
                slots.acquireUninterruptibly();
                queue.add("noop", null, BenchContext.NOOP_JOB).subscribe().with(added -> slots.release(), error -> {
                    failure.compareAndSet(null, error);
                    slots.release();
                });
            }
            if (failure.get() != null) {
                throw new IllegalStateException("an add failed", failure.get());
            }
            long end = BenchContext.awaitCompleted(worker, jobs);
            return jobs * 1e9 / (end - start);
        } finally {
            bench.stop(worker);
        }
    }

    /** @return CPU time used so far, µs: the master, the replica ({@code INFO cpu}), this JVM */
    private long[] cpuMicros() {
        return new long[] {redisCpuMicros(pair.master()), redisCpuMicros(pair.replica()), BenchContext.jvmCpuMicros()};
    }

    /**
     * Runs {@code redis} under SCHED_FIFO priority 10 ({@code chrt}), found by its {@code INFO server} process id.
     *
     * @throws IllegalStateException when {@code chrt} fails (not installed, or no permission)
     */
    private static void prioritize(RedisProcess redis) {
        String pid = redis.call("INFO", "server").toString().lines().filter(line -> line.startsWith("process_id:"))
                .map(line -> line.substring("process_id:".length()).trim()).findFirst().orElseThrow();
        try {
            Process chrt = new ProcessBuilder("chrt", "-f", "-p", "10", pid).inheritIO().start();
            if (!chrt.waitFor(10, TimeUnit.SECONDS) || chrt.exitValue() != 0) {
                throw new IllegalStateException("chrt -f -p 10 " + pid + " failed");
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("chrt could not be run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** @return the master's {@code WAIT} calls so far ({@code INFO commandstats}) */
    private long waitCalls() {
        for (String line : pair.master().call("INFO", "commandstats").toString().split("\\r?\\n")) {
            if (line.startsWith("cmdstat_wait:calls=")) {
                return Long.parseLong(line.substring("cmdstat_wait:calls=".length(), line.indexOf(',')));
            }
        }
        return 0;
    }

    private static long redisCpuMicros(RedisProcess redis) {
        double seconds = 0;
        for (String line : redis.call("INFO", "cpu").toString().split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return (long) (seconds * 1e6);
    }

    private static String freshName(String figure) {
        return "bench-durability-" + figure + "-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    }

    private static double percentile(long[] sortedNanos, int percent) {
        int index = Math.min(sortedNanos.length - 1, (int) Math.ceil(percent / 100.0 * sortedNanos.length) - 1);
        return sortedNanos[Math.max(0, index)] / 1e6;
    }

    /** The service's Redis settings with {@code fq.redis.wait.replicas=0}. */
    private static RedisKeysConfig withoutWait(RedisKeysConfig config) {
        return new NoWaitConfig(config.keyPrefix(), config.commandTimeout(),
                new NoWait(RedisKeysConfig.WaitReplicas.of("0"), false, config.waitFor().timeout()), config.memory());
    }

    /** Named records, not anonymous classes: CDI refuses the constraint annotations inherited by the latter. */
    private record NoWaitConfig(String keyPrefix, Duration commandTimeout, RedisKeysConfig.Wait waitFor,
            RedisKeysConfig.Memory memory)
            implements RedisKeysConfig {
    }

    private record NoWait(RedisKeysConfig.WaitReplicas replicas, boolean aof, Duration timeout) implements RedisKeysConfig.Wait {
    }

    /** One setting's queues and its figures of the current round. */
    private static final class Setting {
        final String name;
        final Queues queues;
        long[] latency;
        double throughput;
        /** CPU per job of the throughput figure, µs: the master, the replica, this JVM. */
        double[] cpu = new double[3];
        /** The master's {@code WAIT} calls during the throughput figure. */
        long waits;

        Setting(String name, Queues queues) {
            this.name = name;
            this.queues = queues;
        }
    }

    /** Completes each job at once. */
    private record Noop(String queue) implements JobProcessor {
        @Override
        public Uni<Object> process(JobContext context) {
            return Uni.createFrom().nullItem();
        }
    }
}
