package dev.fencedqueue.testing;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.function.Predicate;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the queue and worker tests share: a fresh queue (random name, nothing in Redis) before each test,
 * the workers a test starts through {@link #workers}, stopped after it (after the test class's own
 * {@code @AfterEach} methods, as JUnit runs a superclass's last), and the waits they all make.
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

    /** @return the id of a job named {@code job}, without data, added to the test's queue with default options */
    protected String add() {
        return add(JobOptions.defaults());
    }

    /** @return the id of a job named {@code job}, without data, added to the test's queue with {@code options} */
    protected String add(JobOptions options) {
        return add(null, options);
    }

    /**
     * @param data the job's data (anything Jackson writes as JSON), or {@code null}
     * @return the id of a job named {@code job} added to the test's queue with {@code options}
     */
    protected String add(Object data, JobOptions options) {
        return queue.add("job", data, options).await().atMost(TIMEOUT).jobId();
    }

    /** @return the job of the test's queue, once it meets {@code condition} (within {@link Timeouts#TIMEOUT}) */
    protected Job awaitJob(String jobId, Predicate<Job> condition) {
        return await().atMost(TIMEOUT).until(() -> redis.job(queue, jobId), condition);
    }

    /**
     * Waits until the worker running the job has renewed its lock {@code times} times more. A quiet period measured by
     * the worker's own progress rather than the wall clock: a process that stalls as a whole renews nothing, so a stall
     * cannot pass for the wait, and whatever the worker was going to do meanwhile (start another job, cancel this one)
     * it had the time to do.
     *
     * @param jobId a job of the test's queue, running (its lock renewed every few hundred ms with the test options)
     * @param times how many renewals to wait for, at least 1
     */
    protected void awaitLockRenewed(String jobId, int times) {
        long[] expiresAt = {redis.lockExpiresAt(queue, jobId)};
        int[] renewals = {0};
        await("%d renewals of the lock of job %s".formatted(times, jobId)).atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(20)).until(() -> {
                    long now = redis.lockExpiresAt(queue, jobId);
                    if (now > expiresAt[0]) {
                        renewals[0]++;
                        expiresAt[0] = now;
                    }
                    return renewals[0] >= times;
                });
    }

    /**
     * @param workerId the worker id
     * @return a worker of {@code processor} with the test options ({@link TestWorkers#options}) and a drain delay of
     *         2 s, created but not started
     */
    protected Worker createWorker(JobProcessor processor, String workerId) {
        return workers.create(processor, TestWorkers.options(workerId).drainDelay(Duration.ofSeconds(2)).build());
    }

    /** @return a worker as {@link #createWorker} makes it, started */
    protected Worker startWorker(JobProcessor processor, String workerId) {
        Worker worker = createWorker(processor, workerId);
        worker.start();
        return worker;
    }

    /** @return the attempt with index {@code index} (0 = first) of the processor, once it started */
    protected static ProbeProcessor.Attempt awaitAttempt(ProbeProcessor processor, int index) {
        await().atMost(TIMEOUT).until(() -> processor.started() > index);
        return processor.attempt(index);
    }
}
