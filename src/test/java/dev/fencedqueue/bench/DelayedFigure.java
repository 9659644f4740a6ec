package dev.fencedqueue.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.worker.Worker;
import io.smallrye.mutiny.Uni;

/**
 * Figure 4: delayed-job lateness. A running worker (concurrency 50, no-op jobs) gets {@code count} jobs
 * with delays drawn uniformly from 0 to 3,000 ms, added as fast as one producer can with
 * {@link #ADDS_IN_FLIGHT} adds in flight. Lateness = processor start − due time;
 * the due time is the job's {@code timestamp} (Redis {@code TIME} at add) plus its delay, and the start is
 * read from this JVM's wall clock, the same system clock Redis reads (same host; the offset is recorded).
 */
final class DelayedFigure {

    /**
     * Adds in flight while the jobs are added. The adds share the pipelined connection with the worker's
     * activations, so each one in flight can delay an activation by its run time in Redis; a producer
     * that keeps a few hundred in flight makes the jobs with the shortest delays late by the length of its
     * burst (about 10-30 ms here), which says nothing about how delayed jobs are timed.
     */
    static final int ADDS_IN_FLIGHT = Integer.getInteger("bench.delayedAddsInFlight", 16);

    /**
     * @param lateness lateness samples
     * @param clockOffsetMillis Redis clock minus JVM clock, ms (within the round trip of one {@code TIME})
     * @param addMillis how long adding the jobs took, ms
     */
    record Result(Samples lateness, long clockOffsetMillis, long addMillis) {
    }

    private DelayedFigure() {
    }

    static Result measure(BenchContext bench, int count, long seed) {
        JobQueue queue = bench.freshQueue("delayed");
        Samples lateness = new Samples(count);
        Worker worker = bench.startWorker(BenchProcessor.of(queue.name(), context -> {
            Instant now = Instant.now();
            Job job = context.job();
            long dueMicros = (job.timestamp() + job.delay()) * 1000;
            long late = (now.getEpochSecond() * 1_000_000 + now.getNano() / 1000 - dueMicros) * 1000;
            lateness.add(late);
            if (Boolean.getBoolean("bench.debug") && late > 3_000_000) {
                System.out.println("LATE " + job.id() + " delay " + job.delay() + " due " + (job.timestamp() + job.delay())
                        + " late " + late / 1e6 + " ms, start " + now.toEpochMilli() + " activated (Redis) " + job.processedOn()
                        + " attempt " + job.attemptsStarted());
            }
            return Uni.createFrom().nullItem();
        }), 50);
        long before = System.currentTimeMillis();
        long redisNow = bench.redisTimeMillis();
        long offset = redisNow - (before + System.currentTimeMillis()) / 2;
        Random random = new Random(seed);
        long addNanos = Pipeline.run(count, ADDS_IN_FLIGHT, i -> queue.add("delayed", null,
                BenchContext.NOOP_JOB.withDelay(Duration.ofMillis(random.nextInt(3001)))));
        BenchContext.awaitCompleted(worker, count);
        bench.stop(worker);
        return new Result(lateness, offset, addNanos / 1_000_000);
    }
}
