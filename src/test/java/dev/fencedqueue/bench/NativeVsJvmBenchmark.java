package dev.fencedqueue.bench;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import dev.fencedqueue.testing.PackagedApplication;
import dev.fencedqueue.testing.RedisServerHandle;
import dev.fencedqueue.testing.RedisTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The native executable against the jar on a JVM, side by side in one run (not a test:
 * {@code ./mvnw -Pbench test -Dtest=NativeVsJvmBenchmark} after building both, see BENCHMARKS.md). For each
 * application, {@code bench.runs} times (interleaved, so that a noisy moment hits one run of each rather
 * than every run of one), two fresh processes on the same {@code redis-server}:
 * <ol>
 * <li>concurrency 50: ms from process start to readiness, idle resident memory, no-op jobs/s of the first
 * {@code bench.jobs} (20,000) jobs after start and of a batch after {@code bench.warmup-batches} (4) more,
 * and resident memory with 1,000 SSE subscribers (10 research jobs, 100 each);</li>
 * <li>concurrency 1: the first batch and a batch after warm-up.</li>
 * </ol>
 * The ceiling of the same run: Redis's CPU time per job, and the rate at which it would saturate Redis's one
 * core. The jar runs with the JVM's default settings (G1, heap sized from the machine's memory) on the JVM of
 * this build, and on Temurin 25 (the JDK the native executable is built from) where it is installed.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class NativeVsJvmBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 3);
    private static final int JOBS = Integer.getInteger("bench.jobs", 20_000);
    private static final int WARMUP_BATCHES = Integer.getInteger("bench.warmup-batches", 4);
    private static final Path NATIVE = Path.of(System.getProperty("bench.native",
            "target/fenced-queue-0.1.0-SNAPSHOT-runner"));
    private static final Path JAR = Path.of(System.getProperty("bench.jar", "target/quarkus-app/quarkus-run.jar"));
    private static final Path TEMURIN_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

    /** One application as measured: its label in the figures' names, what to start and with which JVM. */
    private record Subject(String label, PackagedApplication application, Path java) {
    }

    @Inject
    BenchContext bench;

    @RedisTestResource.InjectRedis
    RedisServerHandle redisServer;

    @Test
    void measuresNativeAgainstJvm() {
        assumeTrue(Files.isRegularFile(NATIVE) && Files.isRegularFile(JAR), "build both first: ./mvnw package "
                + "-Dnative -DskipTests && ./mvnw package -DskipTests (BENCHMARKS.md); missing " + NATIVE
                + " or " + JAR);
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        List<Subject> subjects = new ArrayList<>();
        subjects.add(new Subject("native", PackagedApplication.nativeExecutable(NATIVE), null));
        subjects.add(new Subject("jvm" + Runtime.version().feature(), PackagedApplication.jar(JAR), null));
        if (Files.isExecutable(TEMURIN_25) && Runtime.version().feature() != 25) {
            subjects.add(new Subject("jvm25", PackagedApplication.jar(JAR), TEMURIN_25));
        }
        report.note("environment", Runtime.getRuntime().availableProcessors(), "cores", "\"subjects\": \""
                + String.join(", ", subjects.stream().map(Subject::label).toList()) + "\", \"jobs\": " + JOBS
                + ", \"warmupBatches\": " + WARMUP_BATCHES + ", \"runs\": " + RUNS);
        // Unrecorded: the first launch also loads this JVM's HTTP client and test classes.
        PackagedFigures.launch(bench, redisServer.uri(), subjects.get(0).application(), null, "warm-up", 1).stop();
        for (int run = 1; run <= RUNS; run++) {
            for (Subject subject : subjects) {
                measure(bench, report, subject, run);
            }
        }
        report.medians();
    }

    private void measure(BenchContext bench, BenchReport report, Subject subject, int run) {
        String label = subject.label();
        String fields = "\"loadAvg1m\": " + BenchContext.loadAverage();
        PackagedFigures c50 = PackagedFigures.launch(bench, redisServer.uri(), subject.application(), subject.java(),
                label + "-c50-run" + run, 50);
        try {
            report.record(label + "_start_to_ready", c50.readyMillis(), "ms", run, fields);
            report.record(label + "_idle_rss", c50.idleResidentMiB(), "MiB", run, fields);
            batches(report, c50, label + "_noop_c50", run);
            report.record(label + "_rss_1000_sse", c50.residentMiBWithSubscribers(10, 100), "MiB", run,
                    "\"jobs\": 10, \"subscribersPerJob\": 100");
        } finally {
            c50.stop();
        }
        PackagedFigures c1 = PackagedFigures.launch(bench, redisServer.uri(), subject.application(), subject.java(),
                label + "-c1-run" + run, 1);
        try {
            batches(report, c1, label + "_noop_c1", run);
        } finally {
            c1.stop();
        }
    }

    private static void batches(BenchReport report, PackagedFigures process, String metric, int run) {
        record(report, metric + "_first", process.batch(JOBS), run, 0);
        for (int i = 0; i < WARMUP_BATCHES; i++) {
            process.batch(JOBS);
        }
        record(report, metric + "_warm", process.batch(JOBS), run, WARMUP_BATCHES + 1);
    }

    private static void record(BenchReport report, String metric, PackagedFigures.Batch batch, int run,
            int jobsBefore) {
        String fields = "\"jobs\": " + JOBS + ", \"batchesBefore\": " + jobsBefore + ", \"loadAvg1m\": "
                + BenchContext.loadAverage();
        report.record(metric, batch.jobsPerSecond(), "jobs/s", run, fields);
        report.record(metric + "_process_cpu", batch.processCpuMicrosPerJob(), "us/job", run, fields);
        report.record(metric + "_redis_cpu", batch.redisCpuMicrosPerJob(), "us/job", run, fields);
        report.record(metric + "_redis_bound", 1e6 / batch.redisCpuMicrosPerJob(), "jobs/s", run,
                "\"ceiling\": \"Redis's one core busy with these jobs only\"");
    }
}
