package dev.fencedqueue.worker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.fencedqueue.queue.TenantIds;

/**
 * A worker's running jobs and its slot accounting: a job takes a slot from activation until its
 * completion or failure is being written ({@code finishing}); activations in flight reserve the slots they
 * may fill. It also tallies the slot time its attempts held, by tenant, since it was last taken
 * ({@link #takeSlotTime}): an attempt holds a slot from its activation to the end of its run, counted as it ends and,
 * while it runs, each time the tally is taken. Mutated on the worker's context only; reading the ids is thread-safe.
 */
final class ActiveJobs implements JobFetcher.Slots {

    private final int concurrency;
    private final Map<String, ActiveJob> jobs = new ConcurrentHashMap<>();
    private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
    /** The slot time not taken yet, ns, by tenant id. */
    private final Map<String, Long> slotNanos = new HashMap<>();
    private int reserved;
    private int finishing; // jobs here whose end is being written
    private boolean accepting;

    ActiveJobs(int concurrency) {
        this.concurrency = concurrency;
    }

    /** @param value whether the worker takes new jobs (running, not frozen, paused or closing) */
    void accepting(boolean value) {
        this.accepting = value;
    }

    void add(ActiveJob job) {
        jobs.put(job.id(), job);
    }

    /**
     * Marks a job as finishing (its completion or failure is being written): it no longer takes a slot.
     *
     * @param job a job running here
     */
    void finishing(ActiveJob job) {
        if (!job.isFinishing()) {
            job.finishing();
            if (jobs.get(job.id()) == job) {
                finishing++;
            }
        }
    }

    ActiveJob get(String jobId) {
        return jobs.get(jobId);
    }

    /**
     * @return {@code true} when the job was running here and is removed now (so {@code false} when it was
     *         removed already); completes the idle waiters when it was the last one
     */
    boolean remove(ActiveJob job) {
        boolean removed = jobs.remove(job.id(), job);
        if (removed && job.isFinishing()) {
            finishing--;
        }
        if (removed && jobs.isEmpty()) {
            idleWaiters.forEach(waiter -> waiter.complete(null));
            idleWaiters.clear();
        }
        return removed;
    }

    Collection<ActiveJob> snapshot() {
        return List.copyOf(jobs.values());
    }

    Set<String> ids() {
        return Set.copyOf(jobs.keySet());
    }

    boolean isEmpty() {
        return jobs.isEmpty();
    }

    int size() {
        return jobs.size();
    }

    /** @return completes once no job runs here any more */
    CompletableFuture<Void> whenIdle() {
        CompletableFuture<Void> idle = new CompletableFuture<>();
        if (jobs.isEmpty()) {
            idle.complete(null);
        } else {
            idleWaiters.add(idle);
        }
        return idle;
    }

    /**
     * Counts the rest of an attempt's slot time: it ended (completed, failed, handed back or was cancelled).
     *
     * @param job a job running here
     */
    void slotEnded(ActiveJob job) {
        addSlotTime(job, System.nanoTime());
    }

    /**
     * @return the slot time the attempts held since the last take, by tenant id, whole ms (the rest is kept for the
     *         next take): the running ones up to now, those that ended since the last take until they ended
     */
    Map<String, Long> takeSlotTime() {
        long now = System.nanoTime();
        for (ActiveJob job : jobs.values()) {
            if (!job.isFinishing()) { // a finishing one is counted when it ended
                addSlotTime(job, now);
            }
        }
        Map<String, Long> millis = new HashMap<>();
        slotNanos.replaceAll((tenant, held) -> {
            long whole = TimeUnit.NANOSECONDS.toMillis(held);
            if (whole > 0) {
                millis.put(tenant, whole);
            }
            return held - TimeUnit.MILLISECONDS.toNanos(whole);
        });
        slotNanos.values().removeIf(rest -> rest == 0);
        return millis;
    }

    private void addSlotTime(ActiveJob job, long now) {
        long held = job.takeSlotNanos(now);
        if (held > 0) {
            slotNanos.merge(TenantIds.orDefault(job.job().tenant()), held, Long::sum);
        }
    }

    @Override
    public int free() {
        if (!accepting) {
            return 0;
        }
        return Math.max(0, concurrency - (jobs.size() - finishing) - reserved);
    }

    @Override
    public void reserve(int n) {
        reserved += n;
    }

    @Override
    public void unreserve(int n) {
        reserved -= n;
    }
}
