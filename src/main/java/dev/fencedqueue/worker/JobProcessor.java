package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.Optional;

import dev.fencedqueue.queue.CostUnit;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobOptions;
import io.smallrye.mutiny.Uni;

/**
 * Runs the jobs of one queue. Implementations are CDI beans; the worker manager starts a worker for
 * each one. The returned {@code Uni} is the job's pipeline: the worker cancels it when the job's fencing
 * token goes stale, its lock is lost, it is aborted, or the instance shuts down, so everything the
 * processor opens (such as an HTTP call) must close on cancellation.
 *
 * <h2>Threads: what runs where, and what must not block</h2>
 * A worker lives on the Vert.x event loop of the instance's shared Redis connection: fetching jobs, renewing
 * every job's lock, checking fencing tokens and writing completions all happen there, for every worker of the
 * instance. So:
 * <ul>
 * <li>A <b>non-blocking</b> processor ({@link #isBlocking()} is {@code false}, the default) is called, and its
 * {@code Uni} subscribed, on that event loop. It must never block (no JDBC, no file I/O, no
 * sleeping, no {@code await()}): a blocked event loop stops the lock renewals of every job on the
 * instance, their locks expire, and the queue hands them to other instances. Vert.x logs a blocked-thread
 * warning after 2 s.</li>
 * <li>A <b>blocking</b> processor ({@link #isBlocking()} returns {@code true}) is called, and its {@code Uni}
 * subscribed, on a thread of its own: a virtual thread on a JDK 21+ ({@code fq.worker.virtual-threads}), else a
 * thread of Quarkus's worker pool (its size is {@code quarkus.thread-pool.max-threads}). It may block; lock
 * renewal, fencing checks and cancellation go on meanwhile on the event loop. It may await the writes of its
 * {@link JobContext} ({@code context.progress(...).await().atMost(...)}).</li>
 * </ul>
 * Cancellation reaches a blocking processor twice: its {@code Uni} is cancelled and its thread is interrupted,
 * which ends a {@code sleep}, a lock or latch wait, and (on a virtual thread) blocking socket I/O. Work that
 * ignores interrupts, such as a JDBC statement on a platform thread, is stopped at its next write, which fails
 * with {@link JobCancelledException}; {@link JobContext#cancelled()} tells when to cancel such work yourself
 * (for example with {@code java.sql.Statement.cancel()}).
 */
public interface JobProcessor {

    /** @return the name of the queue whose jobs this processor runs */
    String queue();

    /**
     * Whether this processor blocks the thread it is called on (JDBC, files, a slow library): if so, the worker
     * calls {@link #process} on a worker or virtual thread, never on the event loop (see the class
     * documentation). Asked once, when the worker is created.
     *
     * @return {@code false} by default: the processor returns at once and works asynchronously
     */
    default boolean isBlocking() {
        return false;
    }

    /**
     * The class a job's data must read into, checked when a job is added to this processor's queue over the HTTP API
     * ({@code POST /admin/flows}, a job scheduler's template at {@code PUT /admin/schedulers/{id}}): the data is read
     * strictly (no unknown field, no coercion between JSON types; absent data reads as {@code {}}) and checked with the
     * class's Bean Validation constraints, the same checks as the endpoint that adds such jobs, so that a job that
     * could never run is refused with {@code 400} naming the field ({@code children[0].data.query}) instead of failing
     * when it runs. Not asked when a job is added from Java ({@code JobQueue.add}).
     *
     * @return the data's class; empty (the default) for data that is not checked at add
     */
    default Optional<Class<?>> dataType() {
        return Optional.empty();
    }

    /**
     * The options a job of this queue gets where the API that adds it names none ({@code POST /admin/flows}): each
     * option the request names replaces the one given here. Not asked when a job is added from Java
     * ({@code JobQueue.add}), which names all of its options.
     *
     * @return the options, never {@code null}; {@link JobOptions#defaults()} (one attempt, keep every job) by default
     */
    default JobOptions defaultOptions() {
        return JobOptions.defaults();
    }

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

    /**
     * @return what fair dispatch charges a tenant for this queue's jobs ({@code fairShare.lua}): the time each job holds
     *         a worker slot ({@link CostUnit#SLOT_TIME}, the default) or the LLM tokens it spends
     *         ({@link CostUnit#TOKENS}, which its attempts report through {@link JobContext#reportTokens})
     */
    default CostUnit costUnit() {
        return CostUnit.SLOT_TIME;
    }
}
