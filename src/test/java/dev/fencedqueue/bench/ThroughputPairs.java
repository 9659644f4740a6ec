package dev.fencedqueue.bench;

import java.util.Locale;
import java.util.UUID;

import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;

/**
 * The no-op throughput figures, each measured as a pair in one round: fenced-queue ({@link ThroughputFigure}),
 * then BullMQ ({@link BullMqFigure}) on the same Redis server, c50 before c1, so that a noisy moment hits both
 * sides of a pair. Before each side Redis is emptied ({@code FLUSHALL SYNC}; the script cache stays), so both
 * start from the same empty keyspace and neither pays for expiring what the other left. Each pair prints the
 * two sides' jobs/s and Redis CPU per job and their ratios ({@code <figure>_vs_bullmq},
 * {@code <figure>_redis_cpu_vs_bullmq}: fenced-queue ÷ BullMQ). Run 0 is the cold round: the first figures of
 * this JVM, and a Node process without warm-up; later runs give BullMQ's process a warm-up of a quarter of the
 * jobs on another queue first. BullMQ's side starts once this JVM is idle ({@link BenchContext#awaitQuietJvm()}:
 * no JIT compilation or collection left over from the Java side), and this JVM waits for the Node process to
 * exit: neither side's CPU runs while the other is measured.
 */
final class ThroughputPairs {

    private static final String C50 = "noop_jobs_c50";
    private static final String C1 = "noop_jobs_c1";

    private final BenchContext bench;
    private final BenchReport report;
    private final BullMqFigure bullmq;
    private final int redisPort;

    /**
     * @param bullmq the installed BullMQ side, or {@code null} to measure fenced-queue alone
     * @param redisPort the loopback port of the Redis server the service uses
     */
    ThroughputPairs(BenchContext bench, BenchReport report, BullMqFigure bullmq, int redisPort) {
        this.bench = bench;
        this.report = report;
        this.bullmq = bullmq;
        this.redisPort = redisPort;
    }

    /**
     * Measures the selected pairs once: c50 (fenced-queue, BullMQ), then c1.
     *
     * @param run 0 for the cold round, else the run from 1
     */
    void round(int run, int jobs, boolean c50, boolean c1) {
        if (c50) {
            pair(run, C50, jobs, 50);
        }
        if (c1) {
            pair(run, C1, jobs, 1);
        }
    }

    /** Adds BullMQ's medians, the ratios and the targets to the median lines of the throughput figures. */
    void describeMedians() {
        describe(C50, ">= 2x BullMQ warm, >= 1.5x cold", "<= 0.5x BullMQ");
        describe(C1, ">= 1.5x BullMQ", "");
    }

    private void pair(int run, String metric, int jobs, int concurrency) {
        ThroughputFigure.Result ours = ours(run, metric, jobs, concurrency);
        if (bullmq == null) {
            return;
        }
        BullMqFigure.Result theirs = theirs(run, "bullmq_" + metric, jobs, concurrency);
        double redisRatio = ours.redisCpuMicrosPerJob() / theirs.redisCpuMicrosPerJob();
        record(run, metric + "_vs_bullmq", ours.jobsPerSecond() / theirs.jobsPerSecond(), "x", "\"ours\": "
                + BenchReport.number(ours.jobsPerSecond()) + ", \"bullmq\": "
                + BenchReport.number(theirs.jobsPerSecond()) + ", \"redisCpuOurs\": " + BenchReport.number(ours.redisCpuMicrosPerJob()) + ", \"redisCpuBullmq\": "
                + BenchReport.number(theirs.redisCpuMicrosPerJob()) + ", \"redisCpuRatio\": "
                + BenchReport.number(redisRatio));
        record(run, metric + "_redis_cpu_vs_bullmq", redisRatio, "x", "\"ours\": "
                + BenchReport.number(ours.redisCpuMicrosPerJob()) + ", \"bullmq\": "
                + BenchReport.number(theirs.redisCpuMicrosPerJob()));
    }

    private ThroughputFigure.Result ours(int run, String metric, int jobs, int concurrency) {
        flush();
        long[] gc = BenchContext.gcCountAndMillis();
        ThroughputFigure.Result ours = ThroughputFigure.measure(bench, jobs, concurrency);
        String fields = "\"jobs\": " + jobs + ", \"concurrency\": " + concurrency + ", \"preAdded\": true, "
                + "\"eventStream\": false, \"removeOnComplete\": true, \"keysLeft\": " + dbSize() + ", "
                + BenchContext.gcFields(gc);
        record(run, metric, ours.jobsPerSecond(), "jobs/s", fields);
        record(run, metric + "_add_rate", ours.addsPerSecond(), "jobs/s", "\"jobs\": " + jobs
                + ", \"inFlight\": 500, \"redisCpuUsPerAdd\": " + BenchReport.number(ours.redisCpuMicrosPerAdd())
                + ", \"jvmCpuUsPerAdd\": " + BenchReport.number(ours.jvmCpuMicrosPerAdd()) + ", \"quietAfterAddsMs\": "
                + ours.quietAfterAddsMillis());
        record(run, metric + "_redis_cpu", ours.redisCpuMicrosPerJob(), "us/job", fields);
        record(run, metric + "_jvm_cpu", ours.jvmCpuMicrosPerJob(), "us/job", fields);
        record(run, metric + "_jvm_alloc", ours.jvmBytesPerJob(), "bytes/job", fields);
        commands(run, metric, ours.commandStats(), jobs);
        return ours;
    }

    private BullMqFigure.Result theirs(int run, String metric, int jobs, int concurrency) {
        flush();
        int warmup = run == 0 ? 0 : jobs / 4;
        long quietMillis = BenchContext.awaitQuietJvm();
        long jvmCpu = BenchContext.jvmCpuMicros();
        long start = System.nanoTime();
        BullMqFigure.Result theirs = bullmq.measure(redisPort, "bench-bullmq-c" + concurrency + "-"
                + UUID.randomUUID().toString().substring(0, 8), jobs, concurrency, warmup);
        double jvmPercent = (BenchContext.jvmCpuMicros() - jvmCpu) * 1e5 / (System.nanoTime() - start);
        String fields = "\"jobs\": " + jobs + ", \"concurrency\": " + concurrency + ", \"warmupJobs\": " + warmup
                + ", \"removeOnComplete\": true, \"keysLeft\": " + dbSize() + ", \"jvmQuietAfterMs\": " + quietMillis
                + ", \"jvmCpuPercentMeanwhile\": " + BenchReport.number(jvmPercent) + ", \"node\": \""
                + bullmq.nodeVersion() + "\", \"loadAvg1m\": " + BenchContext.loadAverage();
        record(run, metric, theirs.jobsPerSecond(), "jobs/s", fields);
        record(run, metric + "_add_rate", theirs.addsPerSecond(), "jobs/s", "\"jobs\": " + jobs
                + ", \"inFlight\": 500, \"redisCpuUsPerAdd\": " + BenchReport.number(theirs.redisCpuMicrosPerAdd())
                + ", \"nodeCpuUsPerAdd\": " + BenchReport.number(theirs.nodeCpuMicrosPerAdd())
                + ", \"quietAfterAddsMs\": " + Math.round(theirs.quietAfterAddsMillis()));
        record(run, metric + "_redis_cpu", theirs.redisCpuMicrosPerJob(), "us/job", fields);
        record(run, metric + "_node_cpu", theirs.nodeCpuMicrosPerJob(), "us/job", fields);
        commands(run, metric, theirs.commandStats(), jobs);
        return theirs;
    }

    /** Prints {@code <metric>_commands}, Redis's calls and µs per job and command, when they were read. */
    private void commands(int run, String metric, CommandStats stats, int jobs) {
        if (stats != null) {
            report.line(metric + "_commands", "\"run\": " + (run == 0 ? "\"cold\"" : run) + ", "
                    + stats.perJobFields(jobs));
        }
    }

    private void describe(String metric, String target, String redisTarget) {
        String targetField = "\"target\": \"" + target + "\"";
        String redisTargetField = redisTarget.isEmpty() ? "" : "\"target\": \"" + redisTarget + "\"";
        if (bullmq == null) {
            report.describe(metric, targetField + ", \"bullmq\": \"skipped\"");
            report.describe(metric + "_redis_cpu", redisTargetField);
            return;
        }
        report.describe(metric, comparison(metric) + ", " + targetField);
        report.describe(metric + "_redis_cpu", comparison(metric + "_redis_cpu")
                + (redisTargetField.isEmpty() ? "" : ", " + redisTargetField));
    }

    /**
     * @return JSON fields: BullMQ's median ({@code "bullmq"}) and fenced-queue's ÷ BullMQ's ({@code "ratio"}), and
     *         the same of the cold round ({@code "bullmqCold"}, {@code "coldRatio"})
     */
    private String comparison(String metric) {
        double ours = report.median(metric);
        double theirs = report.median("bullmq_" + metric);
        double oursCold = report.cold(metric);
        double theirsCold = report.cold("bullmq_" + metric);
        return "\"bullmq\": " + BenchReport.number(theirs) + ", \"ratio\": " + ratio(ours, theirs)
                + ", \"bullmqCold\": " + BenchReport.number(theirsCold) + ", \"coldRatio\": " + ratio(oursCold, theirsCold);
    }

    private void record(int run, String metric, double value, String unit, String fields) {
        if (run == 0) {
            report.recordCold(metric, value, unit, fields);
        } else {
            report.record(metric, value, unit, run, fields);
        }
    }

    private static String ratio(double ours, double theirs) {
        return Double.isNaN(ours) || Double.isNaN(theirs) ? "null" : String.format(Locale.ROOT, "%.3f", ours / theirs);
    }

    private void flush() {
        bench.redis().send(Request.cmd(Command.FLUSHALL).arg("SYNC")).await().atMost(BenchContext.TIMEOUT);
    }

    private long dbSize() {
        return bench.redis().send(Request.cmd(Command.DBSIZE)).await().atMost(BenchContext.TIMEOUT).toLong();
    }
}
