package dev.fencedqueue.bench;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Map;

import dev.fencedqueue.testing.OtlpReceiver;
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
 * What tracing costs (not a test: {@code ./mvnw -Pbench test -Dtest=TracingOverheadBenchmark} after
 * {@code ./mvnw package -DskipTests}, see BENCHMARKS.md): no-op jobs per second through the packaged jar with tracing
 * off and with tracing on, every trace sampled (each attempt a {@code process} span, exported in batches over OTLP/HTTP
 * to a real receiver in this JVM, which answers at once and decodes nothing, as a collector elsewhere would take
 * nothing of this machine), in one run. {@code bench.runs} (5) rounds, each launching
 * a fresh process of each setting in turn (the order alternates, so that a noisy moment does not always hit the same
 * one) and timing a batch of {@code bench.jobs} (20,000) jobs after {@code bench.warmup-batches} (10) warm-up batches,
 * at concurrency 50: a steady state, as a service that has run for a while is in (with 4, the JIT is still compiling
 * the tracer and its exporter during the timed batch, and the process's CPU per job is that of a cold JVM). The ratio
 * on/off of each round, the process's CPU time per job, and Redis's CPU time per job as the ceiling of the same run.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class TracingOverheadBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 5);
    private static final int JOBS = Integer.getInteger("bench.jobs", 20_000);
    private static final int WARMUP_BATCHES = Integer.getInteger("bench.warmup-batches", 10);
    private static final Path JAR = Path.of(System.getProperty("bench.jar", "target/quarkus-app/quarkus-run.jar"));

    @Inject
    BenchContext bench;

    @RedisTestResource.InjectRedis
    RedisServerHandle redisServer;

    @Test
    void measuresNoopThroughputWithTracingOnAgainstOff() {
        assumeTrue(Files.isRegularFile(JAR), "build the jar first: ./mvnw package -DskipTests; missing " + JAR);
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("tracing_environment", Runtime.getRuntime().availableProcessors(), "cores", "\"jobs\": " + JOBS
                + ", \"warmupBatches\": " + WARMUP_BATCHES + ", \"runs\": " + RUNS + ", \"sampler\": "
                + "\"parentbased_always_on (every trace)\", \"exporter\": \"OTLP/HTTP protobuf, batch every 1 s\"");
        try (OtlpReceiver receiver = OtlpReceiver.counting()) {
            Map<String, String> on = Map.of("quarkus.otel.sdk.disabled", "false",
                    "quarkus.otel.exporter.otlp.traces.protocol", "http/protobuf",
                    "quarkus.otel.exporter.otlp.traces.endpoint", receiver.endpoint(),
                    "quarkus.otel.bsp.schedule.delay", "1s",
                    "quarkus.otel.bsp.max.queue.size", "65536");
            for (int run = 1; run <= RUNS; run++) {
                boolean offFirst = run % 2 == 1;
                double first = warmBatch(report, offFirst ? "off" : "on", offFirst ? Map.of() : on, run);
                double second = warmBatch(report, offFirst ? "on" : "off", offFirst ? on : Map.of(), run);
                double off = offFirst ? first : second;
                double traced = offFirst ? second : first;
                report.record("tracing_on_over_off", traced / off, "ratio", run, "\"loadAvg1m\": "
                        + BenchContext.loadAverage());
            }
            report.note("tracing_export_bytes_per_job", receiver.bytesReceived() / (double) (RUNS * (WARMUP_BATCHES + 1)
                    * JOBS), "bytes", "\"exports\": " + receiver.exports() + ", \"note\": \"OTLP protobuf received from the "
                    + "'on' processes, warm-up batches included\"");
        }
        report.medians();
    }

    /** @return the jobs/s of a warm batch through a fresh process with {@code config} */
    private double warmBatch(BenchReport report, String label, Map<String, String> config, int run) {
        PackagedFigures process = PackagedFigures.launch(bench, redisServer.uri(), PackagedApplication.jar(JAR), null,
                "tracing-" + label + "-run" + run, 50, config);
        try {
            for (int i = 0; i < WARMUP_BATCHES; i++) {
                process.batch(JOBS);
            }
            PackagedFigures.Batch batch = process.batch(JOBS);
            String fields = "\"jobs\": " + JOBS + ", \"loadAvg1m\": " + BenchContext.loadAverage();
            report.record("tracing_" + label + "_noop_c50", batch.jobsPerSecond(), "jobs/s", run, fields);
            report.record("tracing_" + label + "_process_cpu", batch.processCpuMicrosPerJob(), "us/job", run, fields);
            report.record("tracing_" + label + "_redis_bound", 1e6 / batch.redisCpuMicrosPerJob(), "jobs/s", run,
                    "\"ceiling\": \"Redis's one core busy with these jobs only\"");
            return batch.jobsPerSecond();
        } finally {
            process.stop();
        }
    }
}
