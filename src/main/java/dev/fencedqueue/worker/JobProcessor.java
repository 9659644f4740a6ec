package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.Optional;

import dev.fencedqueue.queue.Job;
import io.smallrye.mutiny.Uni;

/**
 * Runs the jobs of one queue. Implementations are CDI beans; {@link WorkerManager} starts a worker for
 * each one. The returned {@code Uni} is the job's pipeline: the worker cancels it when the job's fencing
 * token goes stale, its lock is lost, it is aborted, or the instance shuts down, so everything the
 * processor opens (such as an HTTP call) must close on cancellation.
 */
public interface JobProcessor {

    /** @return the name of the queue whose jobs this processor runs */
    String queue();

    /**
     * Runs one attempt of a job.
     *
     * @param context the job and its fenced writes, never {@code null}
     * @return the job's result, serialized to JSON as its {@code returnValue}; a failure fails the
     *         attempt (retried per {@code attempts} and {@code backoff} unless it is an
     *         {@link UnrecoverableJobException}). A processor that throws instead of returning a failed
     *         {@code Uni} is treated the same way.
     */
    Uni<Object> process(JobContext context);

    /**
     * The custom backoff hook (BullMQ's {@code backoffStrategy}), asked for jobs whose backoff type is
     * {@code custom}. The default waits the backoff's {@code delay}.
     *
     * @param job the job whose attempt failed
     * @param attemptsMade attempts made so far, the failed one included
     * @param failure why the attempt failed
     * @param delay the {@code delay} of the job's backoff option
     * @return the wait before the next attempt, or empty to fail the job now
     */
    default Optional<Duration> backoff(Job job, int attemptsMade, Throwable failure, Duration delay) {
        return Optional.of(delay);
    }
}
