package dev.fencedqueue.bench;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import dev.fencedqueue.dev.EmbeddedRedis;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.testing.PackagedApplication;
import dev.fencedqueue.testing.ServiceProcess;
import dev.fencedqueue.testing.SseClient;
import io.restassured.http.ContentType;

/**
 * The figures of one packaged application (a native executable or a jar on a given JVM) in one process
 * launch: time from process start to readiness, resident memory idle and with SSE subscribers, and no-op
 * queue throughput of the first batch of jobs after start and of a batch after warm-up. Jobs are added by
 * the benchmark's JVM to the launched process's no-op queue ({@code fq.worker.noop-queue}) while the queue is
 * paused; the clock runs from {@code resume} until the wait and active lists are both empty.
 */
final class PackagedFigures {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** How long an idle process is left alone before its resident memory is read. */
    private static final Duration SETTLE = Duration.ofSeconds(3);
    private static final Path LOGS = Path.of("target", "bench-processes").toAbsolutePath();

    /**
     * What one batch of no-op jobs cost.
     *
     * @param jobsPerSecond jobs completed per second, from {@code resume} to empty lists
     * @param processCpuMicrosPerJob the launched process's CPU time per job, µs
     * @param redisCpuMicrosPerJob Redis's CPU time per job, µs
     */
    record Batch(double jobsPerSecond, double processCpuMicrosPerJob, double redisCpuMicrosPerJob) {
    }

    private final BenchContext bench;
    private final String redisUri;
    private final ServiceProcess process;
    private final JobQueue noop;
    private final long readyMillis;

    private PackagedFigures(BenchContext bench, String redisUri, ServiceProcess process, JobQueue noop,
            long readyMillis) {
        this.bench = bench;
        this.redisUri = redisUri;
        this.process = process;
        this.noop = noop;
        this.readyMillis = readyMillis;
    }

    /**
     * Starts the application with a no-op queue of its own and waits until it is ready.
     *
     * @param bench the benchmark's beans, must not be {@code null}
     * @param redisUri the Redis the process and the benchmark share
     * @param application what to start
     * @param java the JVM that runs a jar (ignored for a native executable)
     * @param name a name for the log file
     * @param concurrency the worker concurrency of the process (its no-op and research workers)
     * @return the running process, ready
     */
    static PackagedFigures launch(BenchContext bench, String redisUri, PackagedApplication application, Path java,
            String name, int concurrency) {
        return launch(bench, redisUri, application, java, name, concurrency, Map.of());
    }

    /**
     * Starts the application like {@link #launch(BenchContext, String, PackagedApplication, Path, String, int)}, with
     * more configuration.
     *
     * @param extra configuration added to (or replacing) the launch's own, as {@code -Dkey=value}
     * @return the running process, ready
     */
    static PackagedFigures launch(BenchContext bench, String redisUri, PackagedApplication application, Path java,
            String name, int concurrency, Map<String, String> extra) {
        return launch(bench, redisUri, application, java, List.of(), name, concurrency, extra);
    }

    /**
     * Starts the application like {@link #launch(BenchContext, String, PackagedApplication, Path, String, int, Map)},
     * with JVM options of the caller's.
     *
     * @param jvmOptions options of a jar's JVM (such as {@code -XX:AOTCache=...}), ignored by a native executable,
     *        must not be {@code null}
     * @return the running process, ready
     */
    static PackagedFigures launch(BenchContext bench, String redisUri, PackagedApplication application, Path java,
            List<String> jvmOptions, String name, int concurrency, Map<String, String> extra) {
        String queue = "bench-noop-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> config = new java.util.HashMap<>(Map.of("quarkus.redis.hosts", redisUri,
                "fq.worker.id", name,
                "fq.worker.concurrency", Integer.toString(concurrency),
                "fq.worker.noop-queue", queue,
                "fq.simulator.research.steps", "600",
                "fq.simulator.research.step-interval", "1s"));
        config.putAll(extra);
        // -Dbench.process.jvm-options="..." (space-separated; {name} is the launch's name) adds JVM options to a jar's
        // process, to profile it: -XX:StartFlightRecording=dumponexit=true,filename=target/{name}.jfr
        String options = System.getProperty("bench.process.jvm-options", "").trim().replace("{name}", name);
        List<String> allOptions = new ArrayList<>(jvmOptions);
        if (!options.isEmpty()) {
            allOptions.addAll(List.of(options.split("\\s+")));
        }
        ServiceProcess process = ServiceProcess.start(application.withJava(java), allOptions, name,
                EmbeddedRedis.freePort(), config, Map.of(), LOGS.resolve(name + ".log"));
        try {
            long ready = process.awaitReady(READY_TIMEOUT, Duration.ofMillis(5));
            return new PackagedFigures(bench, redisUri, process, bench.queues().queue(queue), ready);
        } catch (RuntimeException e) {
            process.close();
            throw e;
        }
    }

    /** @return ms from the start of the process to its first {@code 200} on {@code /q/health/ready} */
    long readyMillis() {
        return readyMillis;
    }

    /** @return the resident memory after the process was left idle for a few seconds, MiB */
    double idleResidentMiB() {
        settle();
        return ProcessStats.residentMiB(process.pid());
    }

    /**
     * Runs one batch of no-op jobs through the process.
     *
     * @param jobs how many jobs
     * @return what the batch cost
     */
    Batch batch(int jobs) {
        noop.pause().await().atMost(BenchContext.TIMEOUT);
        Pipeline.run(jobs, 500, i -> noop.add("noop", null, BenchContext.NOOP_JOB));
        long processCpu = ProcessStats.cpuMicros(process.pid());
        long redisCpu = bench.redisCpuMicros();
        long start = System.nanoTime();
        noop.resume().await().atMost(BenchContext.TIMEOUT);
        long end = awaitEmpty(jobs);
        processCpu = ProcessStats.cpuMicros(process.pid()) - processCpu;
        redisCpu = bench.redisCpuMicros() - redisCpu;
        return new Batch(jobs * 1e9 / (end - start), (double) processCpu / jobs, (double) redisCpu / jobs);
    }

    /**
     * Opens SSE subscribers on running research jobs (the built-in simulator's 10-minute streams) and reads
     * the resident memory once every subscriber has its first event; then aborts the jobs and closes them.
     *
     * @param jobs how many research jobs
     * @param perJob subscribers per job
     * @return the resident memory with all subscribers connected, MiB
     */
    double residentMiBWithSubscribers(int jobs, int perJob) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            ids.add(process.request().contentType(ContentType.JSON).body(Map.of("query", "subscribers " + i))
                    .post("/research/start").then().statusCode(202).extract().path("jobId"));
        }
        List<SseClient> subscribers = new ArrayList<>();
        try {
            for (String id : ids) {
                for (int i = 0; i < perJob; i++) {
                    subscribers.add(SseClient.open(process.url("/research/stream/" + id)));
                }
            }
            await("every subscriber has its first event").atMost(Duration.ofSeconds(60))
                    .until(() -> subscribers.stream().allMatch(s -> !s.events().isEmpty()));
            settle();
            return ProcessStats.residentMiB(process.pid());
        } finally {
            subscribers.forEach(SseClient::close);
            ids.forEach(id -> process.request().post("/research/abort/" + id));
        }
    }

    /** Stops the process (SIGTERM, then SIGKILL after 15 s). */
    void stop() {
        process.close();
    }

    @Override
    public String toString() {
        return process + " on " + redisUri;
    }

    private void settle() {
        await().pollDelay(SETTLE).atMost(SETTLE.plusSeconds(1)).until(process::isAlive);
    }

    /**
     * Looks every millisecond until the no-op queue's wait and active lists are empty; completed jobs are
     * removed at once ({@code removeOnComplete}), failed ones would stay in the failed set.
     *
     * @throws IllegalStateException when a job failed, or the jobs took longer than two minutes
     */
    private long awaitEmpty(int jobs) {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            Map<JobState, Long> counts = noop.getJobCounts().await().atMost(BenchContext.TIMEOUT);
            long now = System.nanoTime();
            if (counts.get(JobState.WAITING) + counts.get(JobState.ACTIVE) + counts.get(JobState.PAUSED) == 0) {
                if (counts.get(JobState.FAILED) > 0) {
                    throw new IllegalStateException(counts.get(JobState.FAILED) + " no-op jobs failed in " + this);
                }
                return now;
            }
            LockSupport.parkNanos(1_000_000);
        }
        throw new IllegalStateException(this + " did not finish " + jobs + " no-op jobs within two minutes");
    }
}
