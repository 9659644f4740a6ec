package dev.fencedqueue.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.locks.LockSupport;

import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.worker.Worker;

/**
 * The scenario both fan-out benchmarks measure, each against its own sink ({@link Sink}): the fenced fan-out's rate
 * ({@link #SUBSCRIBERS} subscribers of one channel, chunks of {@link #CHUNK}, no throttle; notifications per second
 * from the add to the completion), beside the sink's ceiling measured in the same run (the same rows written plainly,
 * without fencing, cursor or Redis script: {@link Sink#plain}), and the abort latency (the operator's abort request,
 * once 20 chunks are done, to the job stopped at a chunk boundary) beside one chunk's duration. After unrecorded
 * warm-ups of both paths, {@link #RUNS} runs ({@code bench.runs}, 3), interleaved, then the medians.
 */
final class FanOutScenario {

    /** How many recorded runs ({@code bench.runs}, 3). */
    static final int RUNS = Integer.getInteger("bench.runs", 3);

    /** How many subscribers the channel has ({@code bench.subscribers}, 100,000). */
    static final int SUBSCRIBERS = Integer.getInteger("bench.subscribers", 100_000);

    /** Subscribers per chunk. */
    static final int CHUNK = 500;

    /** How many chunks a fan-out has done when the abort is asked for. */
    private static final int CHUNKS_BEFORE_ABORT = 20;

    /** What the scenario needs of one sink: its counts, and its ceiling. */
    interface Sink {

        /** Before each fan-out: removes what earlier ones wrote for the channel, where the sink's counts need it. */
        default void clear(String channel) {
        }

        /** @return how many notifications the sink holds of the job */
        long notifications(String channel, String jobId) throws Exception;

        /** @return how many chunks the job completed so far (its cursor's count), 0 before its first */
        long chunksDone(String channel, String jobId) throws Exception;

        /**
         * Writes what a fan-out to every subscriber writes, plainly (the sink's ceiling), and checks the count.
         *
         * @return notifications per second
         */
        double plain(String channel) throws Exception;
    }

    private final String prefix;
    private final String ceiling;
    private final int warmUps;
    private final Sink sink;
    private final BulkControl control;

    /**
     * @param prefix the figures' prefix: {@code <prefix>_fenced}, {@code <prefix>_abort_latency} ...
     * @param ceiling the name of the ceiling's figure after the prefix ({@code plain_insert_ceiling})
     * @param warmUps how many unrecorded rounds of both paths come before the first run
     * @param sink the sink the fan-outs write to, and its ceiling
     * @param control where the abort is asked for
     */
    FanOutScenario(String prefix, String ceiling, int warmUps, Sink sink, BulkControl control) {
        this.prefix = prefix;
        this.ceiling = ceiling;
        this.warmUps = warmUps;
        this.sink = sink;
        this.control = control;
    }

    /**
     * Measures, and prints every figure and their medians ({@link BenchReport}).
     *
     * @param bench where {@code worker} is stopped at the end
     * @param worker the started worker that runs the fan-outs of {@code queue} into the sink
     * @param queue the fan-outs' queue
     * @param channel a channel with {@link #SUBSCRIBERS} subscribers
     * @param server the sink's server, as a JSON field of the environment line ({@code "redis": "7.2.4"})
     */
    void run(BenchContext bench, Worker worker, JobQueue queue, String channel, String server) throws Exception {
        BenchReport report = new BenchReport(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        report.note("environment", Runtime.getRuntime().availableProcessors(), "cores", "\"subscribers\": "
                + SUBSCRIBERS + ", \"chunkSize\": " + CHUNK + ", " + server + ", \"runs\": " + RUNS);
        for (int warmUp = 0; warmUp < warmUps; warmUp++) { // unrecorded: both paths JIT-compiled before the first run
            fenced(queue, channel);
            sink.plain(channel);
        }
        try {
            for (int run = 1; run <= RUNS; run++) {
                String fields = "\"loadAvg1m\": " + BenchContext.loadAverage();
                double plain = sink.plain(channel);
                report.record(prefix + "_" + ceiling, plain, "notifications/s", run, fields);
                double fenced = fenced(queue, channel);
                report.record(prefix + "_fenced", fenced, "notifications/s", run, fields);
                report.record(prefix + "_fenced_vs_ceiling", fenced / plain, "ratio", run, "\"goal\": \">= 0.8\"");
                double[] abort = abortLatency(queue, channel);
                report.record(prefix + "_abort_latency", abort[0], "ms", run, "\"chunkMs\": " + abort[1]);
                report.record(prefix + "_chunk_duration", abort[1], "ms", run, "\"goal\": \"abort <= chunk + 100 ms\"");
            }
        } finally {
            bench.stop(worker);
        }
        report.medians();
    }

    /** One fenced fan-out to every subscriber; notifications per second from the add to the completion. */
    private double fenced(JobQueue queue, String channel) throws Exception {
        sink.clear(channel);
        long start = System.nanoTime();
        String jobId = FanOutJobs.add(queue, channel, CHUNK);
        FanOutJobs.awaitState(queue, jobId, JobState.COMPLETED);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(sink.notifications(channel, jobId)).isEqualTo(SUBSCRIBERS);
        return SUBSCRIBERS / seconds;
    }

    /**
     * @return the ms from the abort request to the job stopped ({@code aborted}), and the mean ms of one chunk of
     *         that job
     */
    private double[] abortLatency(JobQueue queue, String channel) throws Exception {
        sink.clear(channel);
        String jobId = FanOutJobs.add(queue, channel, CHUNK);
        long deadline = System.nanoTime() + FanOutJobs.TIMEOUT.toNanos();
        while (sink.chunksDone(channel, jobId) < CHUNKS_BEFORE_ABORT && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        long started = queue.getJob(jobId).await().atMost(BenchContext.TIMEOUT).processedOn();
        long askedAt = System.nanoTime();
        long askedAtMs = System.currentTimeMillis();
        control.abort(queue.name(), jobId, Duration.ofHours(1), "benchmark abort").await().atMost(BenchContext.TIMEOUT);
        FanOutJobs.awaitState(queue, jobId, JobState.ABORTED);
        double latencyMs = (System.nanoTime() - askedAt) / 1e6;
        long chunks = sink.chunksDone(channel, jobId);
        double chunkMs = (double) (askedAtMs - started) / Math.max(1, chunks);
        assertThat(sink.notifications(channel, jobId)).isEqualTo(chunks * CHUNK);
        return new double[] {latencyMs, chunkMs};
    }
}
