package dev.fencedqueue.testing;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.awaitility.Awaitility.await;

import java.util.function.BiFunction;
import java.util.function.LongSupplier;

import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerTestAccess;

/**
 * A takeover as a stalled worker causes one, in one JVM: the worker running a job is frozen
 * ({@link WorkerTestAccess#freeze}: as if paused by GC, it renews no lock while its attempt goes on), another worker
 * of the queue is started, and once the frozen worker's lock expired the stalled-job check hands the job to the other
 * one, in a newer epoch (a greater fencing token).
 *
 * <p>{@link #of} arranges the usual pair, two processors and two workers: worker A ({@code worker-A}) and worker B
 * ({@code worker-B}) of one queue, each running its own {@link ProbeProcessor#held held} {@link ProbeProcessor} (an
 * attempt runs until the test ends it); A is started, B only created. {@link #takeOver()} then freezes A, starts B
 * and returns B's first attempt. A stays frozen: a test thaws it ({@link WorkerTestAccess#thaw}) when it wants A's
 * next renewal to find out. {@link #takeOver(Worker, Worker, LongSupplier)} does the same with any two workers,
 * watching the job's fencing token.
 */
public final class Takeover {

    private final ProbeProcessor processorA;
    private final ProbeProcessor processorB;
    private final Worker workerA;
    private final Worker workerB;

    private Takeover(ProbeProcessor processorA, ProbeProcessor processorB, Worker workerA, Worker workerB) {
        this.processorA = processorA;
        this.processorB = processorB;
        this.workerA = workerA;
        this.workerB = workerB;
    }

    /**
     * Arranges the pair: two held processors of {@code queue}, A's worker started, B's created.
     *
     * @param queue the queue both processors take their jobs from, must not be {@code null}
     * @param workers makes a worker (not started, stopped after the test) running a processor, with a worker id: a
     *        test's own, for the worker options it uses; must not be {@code null}
     * @return the pair, A started
     */
    public static Takeover of(String queue, BiFunction<JobProcessor, String, Worker> workers) {
        ProbeProcessor processorA = ProbeProcessor.held(queue);
        ProbeProcessor processorB = ProbeProcessor.held(queue);
        Worker workerA = workers.apply(processorA, "worker-A");
        Worker workerB = workers.apply(processorB, "worker-B");
        workerA.start();
        return new Takeover(processorA, processorB, workerA, workerB);
    }

    /** @return A's processor, whose attempts run until the test ends them */
    public ProbeProcessor processorA() {
        return processorA;
    }

    /** @return B's processor, whose attempts run until the test ends them */
    public ProbeProcessor processorB() {
        return processorB;
    }

    /** @return worker A ({@code worker-A}), started */
    public Worker workerA() {
        return workerA;
    }

    /** @return worker B ({@code worker-B}), started by {@link #takeOver()} */
    public Worker workerB() {
        return workerB;
    }

    /** @return A's first attempt, once it started (within {@link Timeouts#TIMEOUT}) */
    public ProbeProcessor.Attempt awaitAttemptOfA() {
        return awaitFirstAttempt(processorA);
    }

    /**
     * Freezes A and starts B; A's attempt goes on, A stays frozen.
     *
     * @return B's first attempt, once B took the job over (within {@link Timeouts#TIMEOUT})
     */
    public ProbeProcessor.Attempt takeOver() {
        WorkerTestAccess.freeze(workerA);
        workerB.start();
        return awaitFirstAttempt(processorB);
    }

    /**
     * Freezes {@code from} and starts {@code to}, then waits until the job's fencing token grew: {@code to} took the
     * job over. {@code from} stays frozen.
     *
     * @param from the worker running the job, started, must not be {@code null}
     * @param to another worker of the job's queue, not started, must not be {@code null}
     * @param fencingToken reads the job's fencing token now (from Redis, or the service's status of the job)
     * @return the fencing token of {@code to}'s run
     * @throws org.awaitility.core.ConditionTimeoutException when the token did not grow within {@link Timeouts#TIMEOUT}
     */
    public static long takeOver(Worker from, Worker to, LongSupplier fencingToken) {
        long before = fencingToken.getAsLong();
        WorkerTestAccess.freeze(from);
        to.start();
        return await("the job is taken over").atMost(TIMEOUT).until(fencingToken::getAsLong, token -> token > before);
    }

    private static ProbeProcessor.Attempt awaitFirstAttempt(ProbeProcessor processor) {
        await().atMost(TIMEOUT).until(() -> processor.started() > 0);
        return processor.attempt(0);
    }
}
