package dev.fencedqueue.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.KeepJobs;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import dev.fencedqueue.worker.WorkerOptions;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;

/**
 * What every figure of the benchmark uses: the real beans, fresh queues, workers with production lock
 * settings, and CPU readings of Redis and of this JVM. Used from the test thread.
 *
 * @param queues the queues
 * @param workers the worker manager
 * @param redis the shared pipelined connection
 * @param scripts the Lua script registry
 * @param events the job event store
 * @param json Jackson
 */
record BenchContext(Queues queues, WorkerManager workers, SharedConnection redis, LuaScripts scripts,
        JobEventStore events, ObjectMapper json) {

    static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** Options of a no-op job: no per-job event stream, removed as soon as it completes ({@code removeOnComplete: true}). */
    static final JobOptions NOOP_JOB = JobOptions.defaults().withEventStream(false).withRemoveOnComplete(KeepJobs.NONE);

    /** @return a queue with a fresh random name */
    JobQueue freshQueue(String figure) {
        return queues.queue("bench-" + figure + "-" + UUID.randomUUID().toString().substring(0, 8));
    }

    /**
     * Creates and starts a worker with the service's production lock settings (lock 30 s, renewal every
     * 10 s, stalled check every 15 s, marker block 5 s).
     */
    Worker startWorker(JobProcessor processor, int concurrency) {
        Worker worker = workers.create(processor, WorkerOptions.builder("bench-" + UUID.randomUUID().toString().substring(0, 6))
                .concurrency(concurrency).lock(Duration.ofSeconds(30), Duration.ofSeconds(10))
                .stalledCheck(Duration.ofSeconds(15), 1).drainDelay(Duration.ofSeconds(5)).build());
        worker.start();
        return worker;
    }

    void stop(Worker worker) {
        workers.stop(worker).await().atMost(TIMEOUT);
    }

    /**
     * Waits, looking every millisecond, until a worker has completed {@code count} jobs.
     *
     * @return {@link System#nanoTime()} when it had
     * @throws IllegalStateException when the worker made no progress for ten seconds
     */
    static long awaitCompleted(Worker worker, long count) {
        long last = -1;
        long lastChange = System.nanoTime();
        while (true) {
            long completed = worker.stats().completed();
            long now = System.nanoTime();
            if (completed >= count) {
                return now;
            }
            if (completed != last) {
                last = completed;
                lastChange = now;
            } else if (now - lastChange > TIMEOUT.toNanos()) {
                throw new IllegalStateException("worker stuck at " + completed + " of " + count + " completed jobs; "
                        + worker.stats());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** @return CPU time Redis used so far ({@code INFO cpu}: user + system), in microseconds */
    long redisCpuMicros() {
        String info = redis.send(Request.cmd(Command.INFO).arg("cpu")).await().atMost(TIMEOUT).toString();
        double seconds = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return (long) (seconds * 1e6);
    }

    /** Resets Redis's command statistics ({@code CONFIG RESETSTAT}). */
    void resetCommandStats() {
        redis.send(Request.cmd(Command.CONFIG).arg("RESETSTAT")).await().atMost(TIMEOUT);
    }

    /** @return Redis's {@code INFO commandstats}: calls and time per command, inner script calls included */
    String commandStats() {
        return redis.send(Request.cmd(Command.INFO).arg("commandstats")).await().atMost(TIMEOUT).toString();
    }

    /** @return CPU time this JVM used so far, in microseconds */
    static long jvmCpuMicros() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1000;
    }

    /**
     * Waits until this JVM is idle: at most one 10 ms tick of CPU time in a 200 ms window (JIT compilation and
     * collections after a figure run on threads of their own), or 10 s at most.
     *
     * @return how long it waited, ms
     */
    static long awaitQuietJvm() {
        long start = System.nanoTime();
        long deadline = start + Duration.ofSeconds(10).toNanos();
        long before = jvmCpuMicros();
        while (System.nanoTime() < deadline) {
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
            long now = jvmCpuMicros();
            if (now - before <= 10_000) {
                break;
            }
            before = now;
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** @return bytes allocated so far by all live threads of this JVM (an estimate from the thread MXBean) */
    static long jvmAllocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }

    /** @return garbage collections so far and their total time in ms, summed over all collectors */
    static long[] gcCountAndMillis() {
        long count = 0;
        long millis = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {count, millis};
    }

    /**
     * @param before {@link #gcCountAndMillis()} taken before a figure
     * @return JSON fields {@code "gcCount"} and {@code "gcMs"} for the collections since then, and
     *         {@code "loadAvg1m"}, how busy the (shared) machine was
     */
    static String gcFields(long[] before) {
        long[] now = gcCountAndMillis();
        return "\"gcCount\": " + (now[0] - before[0]) + ", \"gcMs\": " + (now[1] - before[1]) + ", \"loadAvg1m\": "
                + loadAverage();
    }

    /** @return the machine's 1-minute load average (runnable threads, all processes), or -1 when unknown */
    static String loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return String.format(java.util.Locale.ROOT, "%.2f", load);
    }

    /** @return CPU time (ns) used so far by each live thread, by thread name (for {@code -Dbench.debug=true}) */
    static java.util.Map<String, Long> threadCpuNanos() {
        var threads = ManagementFactory.getThreadMXBean();
        java.util.Map<String, Long> cpu = new java.util.HashMap<>();
        for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null) {
                cpu.merge(info.getThreadName().replaceAll("-\\d+$", "-N"), Math.max(0, threads.getThreadCpuTime(info.getThreadId())),
                        Long::sum);
            }
        }
        return cpu;
    }

    /** @return the Redis clock, ms since the epoch */
    long redisTimeMillis() {
        var time = redis.send(Request.cmd(Command.TIME)).await().atMost(TIMEOUT);
        return time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000;
    }
}
