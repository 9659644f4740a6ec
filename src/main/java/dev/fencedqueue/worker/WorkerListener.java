package dev.fencedqueue.worker;

import java.util.List;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.QueueKeys;
import io.smallrye.mutiny.Uni;

/**
 * What runs beside a worker and its jobs for features this package does not know: flows deliver a child's ending to
 * its parent and sweep after each stalled-job check ({@code flow.FlowRelay}), job schedulers produce a queue's
 * due ticks while a worker of it runs ({@code scheduler.SchedulerTickers}), tenancy adds up the slot time a
 * worker's attempts held ({@code tenancy.TenantSlotTime}). The worker manager tells every CDI bean that implements
 * it about every worker it creates; the implementations depend on this package, never the reverse (as
 * {@link dev.fencedqueue.queue.AbortFollowUp} does for {@code queue}). Every method has a default that does nothing;
 * none may block.
 */
public interface WorkerListener {

    /**
     * A worker was created (not started yet). Called on the creating thread.
     *
     * @param worker the worker, not {@code null}
     */
    default void created(Worker worker) {
    }

    /**
     * A worker started: it fetches jobs from now on. Called on the worker's context, once.
     *
     * @param worker the worker, not {@code null}
     */
    default void started(Worker worker) {
    }

    /**
     * A worker began to stop: it takes no more jobs, its running ones are drained or handed back. Called on the
     * worker's context.
     *
     * @param worker the worker, not {@code null}
     */
    default void stopping(Worker worker) {
    }

    /**
     * A worker stopped (the worker manager stopped it): its jobs ended or were handed back.
     *
     * @param worker the worker, not {@code null}
     * @return completes once what follows is done; the stop completes after it. A failure is the listener's to
     *         recover: it fails the stop
     */
    default Uni<Void> stopped(Worker worker) {
        return Uni.createFrom().voidItem();
    }

    /**
     * A job ended for good: its completion, or the failure that used its last attempt, was written by the worker
     * that ran it (not a retry, not a write a newer run refused). Called on that worker's context: start what follows
     * in the background and return.
     *
     * @param queue the job's queue, not {@code null}
     * @param job the job as its attempt was activated, not {@code null}
     */
    default void ended(QueueKeys queue, Job job) {
    }

    /**
     * The stalled-job check of a queue ran (found jobs or not, succeeded or failed); every worker of the queue runs it
     * each stalled interval ({@code fq.worker.stalled.interval}).
     *
     * @param queue the queue, not {@code null}
     * @return completes once what follows is done; the check's result is logged after it
     */
    default Uni<Void> stalledChecked(QueueKeys queue) {
        return Uni.createFrom().voidItem();
    }

    /**
     * @param listeners the listeners, not {@code null}; may be empty
     * @return one listener that tells each of {@code listeners}, in their order; {@link #stopped} and
     *         {@link #stalledChecked} complete once all of theirs did, and fail with their failures
     */
    static WorkerListener all(List<WorkerListener> listeners) {
        List<WorkerListener> each = List.copyOf(listeners);
        return new WorkerListener() {
            @Override
            public void created(Worker worker) {
                each.forEach(listener -> listener.created(worker));
            }

            @Override
            public void started(Worker worker) {
                each.forEach(listener -> listener.started(worker));
            }

            @Override
            public void stopping(Worker worker) {
                each.forEach(listener -> listener.stopping(worker));
            }

            @Override
            public Uni<Void> stopped(Worker worker) {
                return joined(each.stream().map(listener -> listener.stopped(worker)).toList());
            }

            @Override
            public void ended(QueueKeys queue, Job job) {
                for (WorkerListener listener : each) {
                    listener.ended(queue, job);
                }
            }

            @Override
            public Uni<Void> stalledChecked(QueueKeys queue) {
                return joined(each.stream().map(listener -> listener.stalledChecked(queue)).toList());
            }
        };
    }

    private static Uni<Void> joined(List<Uni<Void>> steps) {
        return switch (steps.size()) {
            case 0 -> Uni.createFrom().voidItem();
            case 1 -> steps.get(0);
            default -> Uni.join().all(steps).andCollectFailures().replaceWithVoid();
        };
    }
}
