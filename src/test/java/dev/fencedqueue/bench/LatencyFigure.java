package dev.fencedqueue.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.worker.Worker;
import io.smallrye.mutiny.Uni;

/**
 * Figure 3: add → processor start latency, one job at a time, on an idle worker (concurrency 1) blocked on
 * the queue's marker. Each sample runs from just before {@code add} is sent to the first line of the
 * processor, both read from {@link System#nanoTime()} in this JVM; the next job is added 1 ms after the
 * previous one's completion was written, so the worker is blocked again.
 */
final class LatencyFigure {

    private LatencyFigure() {
    }

    static Samples measure(BenchContext bench, int warmup, int count) {
        JobQueue queue = bench.freshQueue("latency");
        AtomicLong startedAt = new AtomicLong();
        Worker worker = bench.startWorker(BenchProcessor.of(queue.name(), context -> {
            startedAt.set(System.nanoTime());
            return Uni.createFrom().nullItem();
        }), 1);
        Samples samples = new Samples(count);
        for (int i = 0; i < warmup + count; i++) {
            LockSupport.parkNanos(1_000_000);
            long sentAt = System.nanoTime();
            queue.add("latency", null, BenchContext.NOOP_JOB).subscribe().with(added -> {
            }, failure -> {
                throw new IllegalStateException(failure);
            });
            BenchContext.awaitCompleted(worker, i + 1);
            if (i >= warmup) {
                samples.add(startedAt.get() - sentAt);
            }
        }
        bench.stop(worker);
        return samples;
    }
}
