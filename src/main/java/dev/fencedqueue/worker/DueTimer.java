package dev.fencedqueue.worker;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Wakes workers at the due times of delayed jobs with sub-millisecond precision: one daemon thread per
 * process, shared by all workers, whose tasks only hand over to a worker's context. The event loop's own
 * timers (and the Vert.x-backed scheduler Quarkus gives Mutiny) round a wait up to the next millisecond,
 * which would make every delayed job start half a millisecond late on average.
 */
final class DueTimer {

    private static final ScheduledThreadPoolExecutor SCHEDULER = create();

    private DueTimer() {
    }

    /**
     * @param task what to run at the due time; it must only hand over to a worker's context (it runs on
     *        the timer thread, and a task that throws is dropped)
     * @param delayMicros the wait, in µs; 0 or less runs the task at once
     * @return the handle that cancels the task
     */
    static ScheduledFuture<?> schedule(Runnable task, long delayMicros) {
        return SCHEDULER.schedule(task, Math.max(0, delayMicros), TimeUnit.MICROSECONDS);
    }

    private static ScheduledThreadPoolExecutor create() {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "fq-due-timer");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }
}
