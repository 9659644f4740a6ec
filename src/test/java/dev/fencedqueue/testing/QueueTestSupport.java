package dev.fencedqueue.testing;

import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.worker.WorkerManager;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the queue and worker tests share: a fresh queue (random name, nothing in Redis) before each test,
 * and the workers a test starts through {@link #workers}, stopped after it (after the test class's own
 * {@code @AfterEach} methods, as JUnit runs a superclass's last).
 */
public abstract class QueueTestSupport {

    @Inject
    protected WorkerManager manager;

    @Inject
    protected QueueInspector redis;

    /** The test's workers, stopped after each test. */
    protected TestWorkers workers;

    /** A queue of its own for each test. */
    protected JobQueue queue;

    @BeforeEach
    void freshQueueAndWorkers() {
        workers = new TestWorkers(manager);
        queue = redis.freshQueue();
    }

    @AfterEach
    void stopWorkers() {
        workers.stopAll();
    }
}
