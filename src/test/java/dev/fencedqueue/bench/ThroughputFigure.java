package dev.fencedqueue.bench;

import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.worker.Worker;

/**
 * No-op jobs processed per second by one worker. As in BullMQ's benchmark, the jobs are added first
 * (pipelined, 500 in flight) and then processed: the clock runs from {@link Worker#start()} until the
 * worker has written the completion of the last job. Jobs keep no event stream and are removed as they
 * complete. Redis's CPU time is read ({@code INFO cpu}) just before the worker starts and right after the
 * last completion; {@code src/test/bullmq-bench/bench.cjs} does the same for BullMQ ({@link BullMqFigure}).
 */
final class ThroughputFigure {

    /** {@code -Dbench.commandstats=true} reads Redis's {@code INFO commandstats} of each processing phase. */
    static final boolean COMMAND_STATS = Boolean.getBoolean("bench.commandstats");

    /** {@code -Dbench.debug=true} prints the CPU time per job of the busiest threads. */
    private static final boolean DEBUG = Boolean.getBoolean("bench.debug");

    /**
     * @param jobsPerSecond completed jobs per second
     * @param addsPerSecond jobs added per second while the queue was filled (pipelined, 500 in flight)
     * @param redisCpuMicrosPerAdd Redis CPU time per job added while the queue was filled, µs
     * @param jvmCpuMicrosPerAdd this JVM's CPU time per job added while the queue was filled, µs
     * @param quietAfterAddsMillis how long this JVM took to become idle after the adds, ms (the processing phase
     *        starts then)
     * @param redisCpuMicrosPerJob Redis CPU time per job while processing, µs
     * @param jvmCpuMicrosPerJob this JVM's CPU time per job while processing, µs
     * @param jvmBytesPerJob bytes this JVM allocated per job while processing
     * @param commandStats Redis's command statistics of the processing phase, or {@code null} unless
     *        {@code -Dbench.commandstats=true}
     */
    record Result(double jobsPerSecond, double addsPerSecond, double redisCpuMicrosPerAdd, double jvmCpuMicrosPerAdd,
            long quietAfterAddsMillis, double redisCpuMicrosPerJob, double jvmCpuMicrosPerJob, double jvmBytesPerJob,
            CommandStats commandStats) {
    }

    private ThroughputFigure() {
    }

    static Result measure(BenchContext bench, int jobs, int concurrency) {
        JobQueue queue = bench.freshQueue("c" + concurrency);
        long redisCpuAdding = bench.redisCpuMicros();
        long jvmCpuAdding = BenchContext.jvmCpuMicros();
        long addNanos = Pipeline.run(jobs, 500, i -> queue.add("noop", null, BenchContext.NOOP_JOB));
        redisCpuAdding = bench.redisCpuMicros() - redisCpuAdding;
        jvmCpuAdding = BenchContext.jvmCpuMicros() - jvmCpuAdding;
        // The processing phase starts on an idle JVM: compilation the adds caused is not counted in it (bench.cjs
        // waits for its Node process the same way).
        long quietMillis = BenchContext.awaitQuietJvm();
        if (COMMAND_STATS) {
            bench.resetCommandStats();
        }
        long redisCpu = bench.redisCpuMicros();
        long jvmCpu = BenchContext.jvmCpuMicros();
        long allocated = BenchContext.jvmAllocatedBytes();
        var threadsBefore = DEBUG ? BenchContext.threadCpuNanos() : null;
        long start = System.nanoTime();
        Worker worker = bench.startWorker(BenchProcessor.noop(queue.name()), concurrency);
        long end = BenchContext.awaitCompleted(worker, jobs);
        redisCpu = bench.redisCpuMicros() - redisCpu;
        jvmCpu = BenchContext.jvmCpuMicros() - jvmCpu;
        allocated = BenchContext.jvmAllocatedBytes() - allocated;
        if (DEBUG) {
            var after = BenchContext.threadCpuNanos();
            after.entrySet().stream().map(e -> java.util.Map.entry(e.getKey(), e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0L)))
                    .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed()).limit(8)
                    .forEach(e -> System.out.printf("THREAD %-40s %8.1f us/job%n", e.getKey(), e.getValue() / 1e3 / jobs));
        }
        CommandStats commandStats = COMMAND_STATS ? CommandStats.parse(bench.commandStats()) : null;
        bench.stop(worker);
        return new Result(jobs * 1e9 / (end - start), jobs * 1e9 / addNanos, (double) redisCpuAdding / jobs,
                (double) jvmCpuAdding / jobs, quietMillis, (double) redisCpu / jobs, (double) jvmCpu / jobs,
                (double) allocated / jobs, commandStats);
    }
}
