package dev.fencedqueue.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Set;

import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.testing.RedisServerHandle;
import dev.fencedqueue.testing.RedisTestResource;
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
 * The queue benchmark (not a test: excluded from {@code ./mvnw verify}; run it with {@code ./mvnw -Pbench test},
 * see BENCHMARKS.md). Against a {@code redis-server} 7.0.15 it starts itself (default {@code hz} 10), with the
 * service's real beans, it first measures the no-op throughput figures cold (the first figures of this JVM),
 * each beside BullMQ 6.7.0 on the same server ({@link ThroughputPairs}, {@link BullMqFigure}; skipped with one
 * line where Node.js is missing), then runs one unrecorded warm-up round of the other figures, then measures
 * each figure {@code bench.runs} times (3 by default; the runs of all figures are interleaved, so that a noisy
 * moment hits one run of several figures rather than every run of one), together with the Redis ceilings.
 * Every measurement is one JSON line on stdout and in {@code target/benchmarks.jsonl}, followed by a median
 * line per figure. {@code -Dbench.figures=c1,c50,latency,delayed,progress,ceiling} picks figures.
 */
@QuarkusTest
@TestProfile(BenchmarkProfile.class)
@WithTestResource(value = RedisTestResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@Tag("benchmark")
class QueueBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 3);
    private static final int JOBS = Integer.getInteger("bench.jobs", 20_000);
    private static final Set<String> FIGURES = Set.of(System.getProperty("bench.figures",
            "ceiling,c1,c50,latency,delayed,progress").split(","));

    @Inject
    BenchContext bench;

    @RedisTestResource.InjectRedis
    RedisServerHandle redisServer;

    @Test
    void measuresTheQueueFiguresBesideBullMq() throws IOException {
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        environment(bench, report);
        describe(report);
        boolean throughput = FIGURES.contains("c50") || FIGURES.contains("c1");
        BullMqFigure bullmq = throughput ? BullMqFigure.install(bench.json(), reason -> report.line("bullmq_skipped",
                "\"reason\": \"" + reason.replace("\"", "'") + "\"")) : null;
        ThroughputPairs pairs = new ThroughputPairs(bench, report, bullmq, redisServer.port());
        pairs.round(0, JOBS, FIGURES.contains("c50"), FIGURES.contains("c1"));
        round(bench, null, 0, 200, 300, 2_000);
        boolean inOrder = true;
        for (int run = 1; run <= RUNS; run++) {
            pairs.round(run, JOBS, FIGURES.contains("c50"), FIGURES.contains("c1"));
            inOrder &= round(bench, report, run, 1_000, 1_000, 20_000);
        }
        pairs.describeMedians();
        report.medians();
        assertThat(inOrder).as("progress events of one job land in the order they were published").isTrue();
    }

    /**
     * Measures every selected figure but the throughput ones ({@link ThroughputPairs}) once.
     *
     * @param report where to record, or {@code null} for the warm-up round
     * @return whether the progress events landed in order
     */
    private boolean round(BenchContext bench, BenchReport report, int run, int latencySamples, int delayedJobs,
            int progressEvents) {
        Recorder out = report == null ? (metric, value, unit, fields) -> {
        } : (metric, value, unit, fields) -> report.record(metric, value, unit, run, fields);
        boolean inOrder = true;
        if (FIGURES.contains("ceiling")) {
            String fields = "\"inFlight\": " + RedisCeiling.WINDOW + ", \"loadAvg1m\": " + BenchContext.loadAverage();
            out.record("redis_ceiling_ping", RedisCeiling.ping(bench, 100_000), "commands/s", fields);
            out.record("redis_ceiling_xadd", RedisCeiling.xadd(bench, 100_000), "commands/s", fields);
            out.record("redis_ceiling_append_event", RedisCeiling.appendEvent(bench, 50_000), "scripts/s", fields);
        }
        if (FIGURES.contains("latency")) {
            long[] gc = BenchContext.gcCountAndMillis();
            Samples latency = LatencyFigure.measure(bench, latencySamples / 5, latencySamples);
            String fields = "\"samples\": " + latency.size() + ", " + BenchContext.gcFields(gc);
            out.record("add_to_start_latency_p50", latency.percentileMillis(50), "ms", fields);
            out.record("add_to_start_latency_p99", latency.percentileMillis(99), "ms", fields);
        }
        if (FIGURES.contains("delayed")) {
            long[] gc = BenchContext.gcCountAndMillis();
            DelayedFigure.Result delayed = DelayedFigure.measure(bench, delayedJobs, run);
            String fields = "\"jobs\": " + delayed.lateness().size() + ", \"delays\": \"uniform 0-3000 ms\", "
                    + "\"concurrency\": 50, \"addsInFlight\": " + DelayedFigure.ADDS_IN_FLIGHT + ", \"addMs\": "
                    + delayed.addMillis()
                    + ", \"redisMinusJvmClockMs\": " + delayed.clockOffsetMillis() + ", " + BenchContext.gcFields(gc);
            out.record("delayed_lateness_p50", delayed.lateness().percentileMillis(50), "ms", fields);
            out.record("delayed_lateness_p99", delayed.lateness().percentileMillis(99), "ms", fields);
            out.record("delayed_lateness_max", delayed.lateness().percentileMillis(100), "ms", fields);
        }
        if (FIGURES.contains("progress")) {
            long[] gc = BenchContext.gcCountAndMillis();
            ProgressFigure.Result piped = ProgressFigure.measure(bench, progressEvents, true);
            out.record("fenced_progress_events", piped.eventsPerSecond(), "events/s", "\"events\": " + progressEvents
                    + ", \"inFlight\": " + ProgressFigure.WINDOW + ", \"inOrder\": " + piped.inOrder() + ", "
                    + BenchContext.gcFields(gc));
            ProgressFigure.Result awaited = ProgressFigure.measure(bench, progressEvents / 4, false);
            out.record("fenced_progress_events_awaited", awaited.eventsPerSecond(), "events/s", "\"events\": "
                    + progressEvents / 4 + ", \"inFlight\": 1, \"inOrder\": " + awaited.inOrder());
            inOrder = piped.inOrder() && awaited.inOrder();
        }
        return inOrder;
    }

    /**
     * Targets, and BullMQ's figures of the measurements the run does not make for BullMQ (measured apart, on
     * the same machine class; the throughput figures get BullMQ's of the same run from {@link ThroughputPairs}).
     */
    private static void describe(BenchReport report) {
        String apart = ", \"bullmqMeasured\": \"apart\"";
        report.describe("add_to_start_latency_p50", "\"bullmq\": 1.30" + apart + ", \"target\": \"<= 1.0\"");
        report.describe("add_to_start_latency_p99", "\"bullmq\": 3.58" + apart + ", \"target\": \"<= 3.0\"");
        report.describe("delayed_lateness_p50", "\"bullmq\": 35.5" + apart + ", \"target\": \"<= 2\"");
        report.describe("delayed_lateness_p99", "\"bullmq\": 102" + apart + ", \"target\": \"<= 5\"");
        report.describe("fenced_progress_events", "\"bullmq\": 4357" + apart + ", \"target\": \">= 10000, in order\"");
    }

    private static void environment(BenchContext bench, BenchReport report) throws IOException {
        String server = redis(bench, Request.cmd(Command.INFO).arg("server"));
        String version = server.lines().filter(line -> line.startsWith("redis_version:")).findFirst().orElse(":?")
                .split(":")[1].trim();
        String hz = Replies.toStringMap(bench.redis().send(Request.cmd(Command.CONFIG).arg("GET").arg("hz")).await()
                .atMost(BenchContext.TIMEOUT)).get("hz");
        String cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
                .findFirst().orElse(":?").split(":")[1].trim();
        report.note("environment", Runtime.getRuntime().availableProcessors(), "cores", "\"cpu\": \"" + cpu
                + "\", \"jvm\": \"" + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + "\", \"redis\": \"" + version + "\", \"hz\": " + hz + ", \"runs\": " + RUNS);
    }

    private static String redis(BenchContext bench, Request request) {
        return bench.redis().send(request).await().atMost(BenchContext.TIMEOUT).toString();
    }

    /** Where a round writes its measurements. */
    @FunctionalInterface
    private interface Recorder {
        void record(String metric, double value, String unit, String fields);
    }
}
