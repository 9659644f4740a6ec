package dev.fencedqueue.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import dev.fencedqueue.worker.WorkerOptions;

/**
 * The workers one test starts through {@link WorkerManager}, all stopped by {@link #stopAll()} (call it
 * from {@code @AfterEach}).
 */
public final class TestWorkers {

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final WorkerManager manager;
    private final List<Worker> created = new CopyOnWriteArrayList<>();

    public TestWorkers(WorkerManager manager) {
        this.manager = manager;
    }

    /**
     * How long an idle test worker blocks on the marker before it looks at the queue again: longer than any wait
     * of a test ({@link Timeouts#TIMEOUT}), so that within a test only the marker and the worker's own timers wake
     * an idle worker, never the blocking pop's timeout.
     */
    public static final Duration DRAIN_DELAY = Duration.ofSeconds(30);

    /**
     * Test options: concurrency 1, lock 1 s renewed every 300 ms, stalled check every 500 ms, one stall
     * allowed, and a drain delay of {@link #DRAIN_DELAY}.
     *
     * @param workerId the worker id
     * @return a builder of those options, to change some of them or {@link WorkerOptions.Builder#build()} them
     */
    public static WorkerOptions.Builder options(String workerId) {
        return WorkerOptions.builder(workerId).concurrency(1).lock(Duration.ofSeconds(1), Duration.ofMillis(300))
                .stalledCheck(Duration.ofMillis(500), 1).drainDelay(DRAIN_DELAY);
    }

    /** @return a worker, created and started */
    public Worker start(JobProcessor processor, WorkerOptions options) {
        Worker worker = create(processor, options);
        worker.start();
        return worker;
    }

    /** @return a worker, created but not started */
    public Worker create(JobProcessor processor, WorkerOptions options) {
        Worker worker = manager.create(processor, options);
        created.add(worker);
        return worker;
    }

    /**
     * Stops every worker created here (again, for those the test stopped itself: that does nothing). Each is
     * stopped even when stopping another failed; the first failure is thrown at the end, the others added to it.
     */
    public void stopAll() {
        RuntimeException failure = null;
        for (Worker worker : created) {
            try {
                manager.stop(worker).await().atMost(STOP_TIMEOUT);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        created.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
