package dev.fencedqueue.bench;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.testing.AotTraining;
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
 * A cold JVM with and without the AOT cache of JDK 25 (JEPs 483, 514, 515), beside BullMQ in the same run (not a
 * test: {@code ./mvnw package -Paot -DskipTests && ./mvnw -Pbench test -Dtest=AotCacheBenchmark}, see
 * BENCHMARKS.md). First the cache is trained as the JVM container image trains it ({@link AotTraining}, the image's
 * script, on the uber-jar); then, {@code bench.runs} times (5), BullMQ's cold c50 (a fresh Node process, no warm-up)
 * and, each in a fresh process on the same {@code redis-server}: the jar on the JVM of this build, on JDK 25, and on
 * JDK 25 with the cache ({@code -XX:AOTMode=on}: it refuses to start rather than run without). Of each process: ms
 * from its start to readiness, and the no-op jobs/s at concurrency 50 of its first {@code bench.jobs} (20,000) jobs:
 * the cold figure of {@link QueueBenchmark}, as a freshly deployed pod serves it. The ratio of each to BullMQ's
 * figure of the same run, and the medians.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class AotCacheBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 5);
    private static final int JOBS = Integer.getInteger("bench.jobs", 20_000);
    private static final int TRAINING_JOBS = Integer.getInteger("bench.aot.training-jobs", 300);
    private static final int CONCURRENCY = 50;

    /** One way of starting the jar: its label in the figures' names, the JVM and its options. */
    private record Subject(String label, Path java, List<String> jvmOptions) {
    }

    @Inject
    BenchContext bench;

    @Inject
    ObjectMapper json;

    @RedisTestResource.InjectRedis
    RedisServerHandle redisServer;

    @Test
    void measuresAColdJvmWithAndWithoutTheAotCache() {
        PackagedApplication jar = PackagedApplication.built();
        assumeTrue(jar.type() == PackagedApplication.Type.JAR && jar.path().toString().endsWith("-runner.jar"),
                "build the uber-jar first: ./mvnw package -Paot -DskipTests (BENCHMARKS.md)");
        Optional<Path> java25 = AotTraining.java();
        assumeTrue(java25.isPresent(), "the AOT cache needs a JDK 25: FQ_AOT_JAVA=<its bin/java>");
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        BullMqFigure bullmq = BullMqFigure.install(json,
                reason -> report.line("bullmq_skipped", "\"reason\": \"" + reason + "\""));

        long trainingStart = System.nanoTime();
        Path cache = AotTraining.run(java25.get(), jar.path(), redisServer.uri(),
                Path.of("target", "aot", "bench.aot").toAbsolutePath(), TRAINING_JOBS);
        report.note("aot_training", (System.nanoTime() - trainingStart) / 1e9, "s",
                "\"researchJobs\": " + TRAINING_JOBS + ", \"cacheBytes\": " + cache.toFile().length());

        List<Subject> subjects = List.of(
                new Subject("jvm" + Runtime.version().feature(), null, List.of()),
                new Subject("jvm25", java25.get(), List.of()),
                new Subject("jvm25_aot", java25.get(), List.of("-XX:AOTMode=on", "-XX:AOTCache=" + cache)));
        report.note("environment", Runtime.getRuntime().availableProcessors(), "cores", "\"subjects\": \""
                + String.join(", ", subjects.stream().map(Subject::label).toList()) + "\", \"jobs\": " + JOBS
                + ", \"runs\": " + RUNS + ", \"bullmq\": " + (bullmq != null));
        for (int run = 1; run <= RUNS; run++) {
            double bullmqJobsPerSecond = Double.NaN;
            if (bullmq != null) {
                BullMqFigure.Result result = bullmq.measure(redisServer.port(), "bullmq-cold-" + run, JOBS,
                        CONCURRENCY, 0);
                bullmqJobsPerSecond = result.jobsPerSecond();
                report.record("bullmq_noop_c50_cold", bullmqJobsPerSecond, "jobs/s", run,
                        "\"loadAvg1m\": " + BenchContext.loadAverage());
            }
            // A different subject first in each run, so that no one of them always follows BullMQ.
            List<Subject> order = new ArrayList<>(subjects);
            Collections.rotate(order, run - 1);
            for (Subject subject : order) {
                measure(report, jar, subject, run, bullmqJobsPerSecond);
            }
        }
        report.describe("jvm25_aot_noop_c50_cold_vs_bullmq", "\"target\": \">= 1.5x BullMQ's cold c50\"");
        report.medians();
    }

    private void measure(BenchReport report, PackagedApplication jar, Subject subject, int run,
            double bullmqJobsPerSecond) {
        String label = subject.label();
        String fields = "\"loadAvg1m\": " + BenchContext.loadAverage();
        PackagedFigures process = PackagedFigures.launch(bench, redisServer.uri(), jar, subject.java(),
                subject.jvmOptions(), label + "-run" + run, CONCURRENCY, Map.of());
        try {
            report.record(label + "_start_to_ready", process.readyMillis(), "ms", run, fields);
            PackagedFigures.Batch first = process.batch(JOBS);
            report.record(label + "_noop_c50_cold", first.jobsPerSecond(), "jobs/s", run, fields);
            report.record(label + "_noop_c50_cold_process_cpu", first.processCpuMicrosPerJob(), "us/job", run, fields);
            report.record(label + "_noop_c50_cold_redis_cpu", first.redisCpuMicrosPerJob(), "us/job", run, fields);
            if (!Double.isNaN(bullmqJobsPerSecond)) {
                report.record(label + "_noop_c50_cold_vs_bullmq", first.jobsPerSecond() / bullmqJobsPerSecond, "x",
                        run, "\"bullmq\": " + BenchReport.number(bullmqJobsPerSecond));
            }
        } finally {
            process.stop();
        }
    }
}
