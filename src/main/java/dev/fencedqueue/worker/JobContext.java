package dev.fencedqueue.worker;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.queue.Job;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Uni;

/**
 * What a processor gets for one attempt of a job: the job, its fencing token, fenced writes into the
 * job's event stream, and a signal of cancellation. Every write carries the attempt's fencing token and
 * is applied inside Redis only while that token is current and the job active; a rejected write fails
 * with {@link dev.fencedqueue.queue.OwnershipLostException} and cancels the attempt at once.
 *
 * <p>Writes are lazy: a returned {@code Uni} writes when subscribed. The writes of one attempt land in the
 * job's stream in the order they are subscribed, also when a processor does not wait for one before
 * subscribing the next. To publish fast, keep many in flight instead of awaiting each (one round trip
 * each): for example {@code Multi.createFrom().iterable(updates).onItem().transformToUni(u ->
 * context.progress(u.percent(), u.message())).merge(256)} subscribes them in order with up to 256 in
 * flight. Keep the number in flight bounded (a few hundred): the Redis client refuses commands beyond its
 * waiting queue ({@code quarkus.redis.max-waiting-handlers}: 32,768 here, shared by the whole instance).
 */
public interface JobContext {

    /** @return the job as it was when this attempt started */
    Job job();

    /** @return the job id */
    String jobId();

    /** @return the fencing token of this attempt (its epoch), strictly greater than any earlier attempt's */
    long fencingToken();

    /**
     * @return the identity of this attempt: the lock token recorded when the job was activated, unique per activation
     *         even if Redis, after losing writes, hands a fencing token out twice; a sink that fences its own writes
     *         stores it with the token (the chunked jobs' cursors do)
     */
    String attemptId();

    /**
     * Reports the LLM tokens this attempt has spent so far, so that fair dispatch charges its tenant for running work
     * as it streams (the worker sends the latest figure with its next lock renewal, every half lock duration); the
     * attempt's final count settles it ({@code LlmTokens}). Thread-safe, never fails; the default does nothing.
     *
     * @param tokens the tokens (prompt and completion) spent so far by this attempt, non-decreasing
     */
    default void reportTokens(long tokens) {
    }

    /** @return the id of the worker running this attempt */
    String workerId();

    /**
     * Reads the job's data.
     *
     * @param type the class to read the JSON data into, must not be {@code null}
     * @param <T> the data type
     * @return the data
     * @throws UnrecoverableJobException when the data does not fit {@code type} (retrying would not help)
     */
    <T> T data(Class<T> type);

    /**
     * Appends a fenced {@code progress} event and makes it the job's last progress.
     *
     * @param percent completion, 0 to 100
     * @param message what the job is doing, may be {@code null}
     * @return the stream entry id; fails with {@link dev.fencedqueue.queue.OwnershipLostException} when the
     *         write was rejected, or {@link JobCancelledException} when the attempt was already cancelled
     */
    Uni<String> progress(int percent, String message);

    /**
     * Appends a fenced {@code progress} event with fields of the processor's own (for example a chunked job's
     * cursor and counts) and makes it the job's last progress, as {@link #progress(int, String)} does.
     *
     * @param percent completion, 0 to 100
     * @param message what the job is doing, may be {@code null}
     * @param details more fields of the event and of the last progress, must not be {@code null}; its
     *        {@code percent} and {@code message} are replaced by the arguments
     * @return the stream entry id; fails as {@link #progress(int, String)}
     */
    Uni<String> progress(int percent, String message, ObjectNode details);

    /**
     * Appends a fenced {@code progress} event, as {@link #progress(int, String, ObjectNode)} does, and records a
     * checkpoint with it in one write: both land or neither does, so the checkpoint a next run reads never disagrees
     * with the events it covers (for example the upstream sequence number of the last text an event carries).
     *
     * @param percent completion, 0 to 100
     * @param message what the job is doing, may be {@code null}
     * @param details more fields of the event, as for {@link #progress(int, String, ObjectNode)}
     * @param checkpoint the state to record, as for {@link #checkpoint(ObjectNode)}
     * @return the stream entry id; fails as {@link #progress(int, String)}
     * @throws IllegalArgumentException when {@code details} or {@code checkpoint} is {@code null}, or
     *         {@code checkpoint} is longer than {@link #MAX_CHECKPOINT_BYTES}
     */
    Uni<String> progress(int percent, String message, ObjectNode details, ObjectNode checkpoint);

    /**
     * Appends a fenced event of any non-terminal type. The worker adds {@code status} (= {@code type}),
     * {@code fencingToken} and {@code workerId} to {@code data}.
     *
     * @param type the event type; not {@code started}, {@code reset} or a terminal type
     * @param data the event's fields, must not be {@code null}
     * @return the stream entry id; fails as {@link #progress}
     * @throws IllegalArgumentException when {@code type} is reserved
     */
    Uni<String> publish(String type, ObjectNode data);

    /**
     * Appends a fenced event of any non-terminal type and records a checkpoint with it, in one write: both land or
     * neither does, so the checkpoint a next run reads never disagrees with the events it covers.
     *
     * @param type the event type, as for {@link #publish(String, ObjectNode)}
     * @param data the event's fields, must not be {@code null}
     * @param checkpoint the state to record, as for {@link #checkpoint(ObjectNode)}
     * @return the stream entry id; fails as {@link #progress}
     * @throws IllegalArgumentException when {@code type} is reserved, or {@code checkpoint} is {@code null} or longer
     *         than {@link #MAX_CHECKPOINT_BYTES}
     */
    Uni<String> publish(String type, ObjectNode data, ObjectNode checkpoint);

    /** Longest checkpoint, in bytes of its JSON text (UTF-8): a checkpoint comes back with every activation. */
    int MAX_CHECKPOINT_BYTES = 16 * 1024;

    /**
     * Records a checkpoint: a small JSON state (a step number, an upstream response id and sequence number) from
     * which a later run of this job can resume; that run reads it from {@link #committedCheckpoint()}. Fenced like
     * every write of the attempt: recorded only while this attempt's fencing token and lock token are the job's. A
     * checkpoint replaces the previous one. A chunked job's cursor is its checkpoint, kept by the chunked job itself.
     *
     * @param state the state, must not be {@code null}; at most {@link #MAX_CHECKPOINT_BYTES} as JSON
     * @return completes once recorded; fails as {@link #progress}
     * @throws IllegalArgumentException when {@code state} is {@code null} or too long
     */
    Uni<Void> checkpoint(ObjectNode state);

    /**
     * @return the last checkpoint an earlier run of this job committed, as it was when this run was activated; empty
     *         when none did
     */
    Optional<ObjectNode> committedCheckpoint();

    /**
     * @return where this run may resume from: the id of the last event the job's stream held when this run was
     *         activated, recorded in the script that made the run current. Every event up to it passed the fence of
     *         its own run, so they are one consistent prefix of the job's output, which a processor may continue
     *         instead of starting over. Empty on a job's first run, for a job that keeps no event stream, and when no
     *         earlier run wrote an event
     */
    Optional<String> resumePoint();

    /**
     * Reads the events this run may continue: the job's events up to {@link #resumePoint()} as a reader keeps them
     * (those of the runs that were continued, up to each resume point; not those of a run that was started over).
     * Read from Redis at each call.
     *
     * @return the events in stream order, {@code started} and {@code resume} events included; empty without a resume
     *         point; fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis cannot be reached
     */
    Uni<List<JobEvent>> committedEvents();

    /**
     * Announces that this run continues the job's committed events instead of starting over: appends a fenced
     * {@code resume} event ({@code attempt}; {@code resumeFrom}, the {@link #resumePoint()}; and {@code reason}, why
     * the job went back to wait: {@code takeover}, {@code retry} or {@code children}). Readers get it in
     * place of the run's {@code started} and keep what they have up to the resume point, where a run that starts over
     * gives them a {@code reset} and they drop it. Call it before the run's first other event: a run whose first event
     * after {@code started} is anything else starts over for its readers.
     *
     * @return the stream entry id; fails as {@link #progress}
     * @throws IllegalStateException when this run has no resume point (nothing to continue)
     */
    Uni<String> resume();

    /**
     * Adds children to this job (a flow, BullMQ's parent and child jobs), fenced like every write of the run: a
     * zombie run adds nothing. Each child's id is {@code <jobId>:<key>} (its key, else its position), so a later run
     * that adds the same children adds none again. The children may run in other queues; then call
     * {@link #moveToWaitingChildren()} to wait for them.
     *
     * @param children the children, not empty; see {@link FlowJob}
     * @return how many were new to the job; fails with {@link dev.fencedqueue.queue.OwnershipLostException} (and the
     *         worker cancels the run) when this run no longer owns the job
     * @throws IllegalArgumentException naming the bad field ({@code children[0].queue}); nothing is added then
     */
    default Uni<Integer> addChildren(List<FlowJob> children) {
        throw new UnsupportedOperationException("this context cannot add children");
    }

    /**
     * Parks this job until its children have ended (BullMQ's {@code moveToWaitingChildren}): with children pending,
     * the job leaves the active list for {@code waiting-children} (no attempt counted) and the returned {@code Uni}
     * fails with {@link WaitingChildrenException}, which the processor lets through; the job runs again, as a new
     * epoch, once the last child ended. With none pending, it completes and the run goes on (read
     * {@link #childrenValues()}).
     *
     * @return completes when no child is pending; fails with {@link WaitingChildrenException} when parked, with
     *         {@link UnrecoverableJobException} when a child whose failure fails the parent failed, and as
     *         {@link #addChildren} when this run no longer owns the job
     */
    default Uni<Void> moveToWaitingChildren() {
        throw new UnsupportedOperationException("this context cannot wait for children");
    }

    /**
     * @return child job key ({@code <prefix>:{<queue>}:job:<id>}) -> return value (JSON) of each completed child
     *         (BullMQ's {@code getChildrenValues}); empty when none
     */
    default Uni<Map<String, String>> childrenValues() {
        throw new UnsupportedOperationException("this context has no children");
    }

    /**
     * @return child job key -> reason of each child that failed and that this job ignored
     *         ({@link dev.fencedqueue.queue.ParentPolicy#IGNORE}); empty when none
     */
    default Uni<Map<String, String>> failedChildren() {
        throw new UnsupportedOperationException("this context has no children");
    }

    /**
     * @return a {@code Uni} that emits the reason once this attempt is cancelled, and never emits otherwise.
     *         Processors normally need not use it: the worker cancels their pipeline {@code Uni}.
     */
    Uni<CancelReason> cancelled();

    /**
     * @return why this attempt was cancelled, once it was; empty while it runs (and for contexts that do not track
     *         it)
     */
    default Optional<CancelReason> cancelReason() {
        return Optional.empty();
    }

    /**
     * The OpenTelemetry context of this attempt: its span ({@code process <queue>}), in the job's trace. A span a
     * processor starts with it as parent (an LLM call, a chunk) is a child of the attempt.
     *
     * @return the attempt's context; {@link Context#root()} when tracing is off or for contexts
     *         that do not trace
     */
    default Context traceContext() {
        return Context.root();
    }
}
