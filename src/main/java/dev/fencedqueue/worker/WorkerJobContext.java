package dev.fencedqueue.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fencedqueue.Failures;
import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventData;
import dev.fencedqueue.queue.DataFields;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.OwnershipLostException;
import dev.fencedqueue.queue.QueueException;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.telemetry.AttemptSpan;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.Spans;
import dev.fencedqueue.tracing.TraceAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Uni;

/**
 * The {@link JobContext} a worker gives to its processor for one attempt. Its writes are sent from the
 * worker's context, in the order they are subscribed (see {@link AttemptHost#lane()}), so that pipelined writes
 * land in Redis in that order whatever thread subscribes them.
 */
final class WorkerJobContext implements JobContext {

    private static final Set<String> RESERVED = Set.of("started", "reset", "resume", "completed", "failed", "aborted");

    /**
     * The text fields of a progress event ({@link dev.fencedqueue.events.AnswerDelta}): the stream keeps them, the job's
     * last progress and the queue's {@code progress} event do not (they tell where a job is, not what it wrote).
     */
    private static final List<String> TEXTS = List.of("delta", "reasoningDelta");

    private final AttemptHost worker;
    private final ActiveJob active;
    private final ObjectMapper json;

    WorkerJobContext(AttemptHost worker, ActiveJob active, ObjectMapper json) {
        this.worker = worker;
        this.active = active;
        this.json = json;
    }

    @Override
    public Job job() {
        return active.job();
    }

    @Override
    public String jobId() {
        return active.id();
    }

    @Override
    public long fencingToken() {
        return active.fencingToken();
    }

    @Override
    public String workerId() {
        return worker.workerId();
    }

    @Override
    public <T> T data(Class<T> type) {
        try {
            return json.readValue(active.job().data(), type);
        } catch (IOException e) {
            String why = e instanceof JsonProcessingException json
                    ? DataFields.refusal("data", json).getMessage() : Failures.describe(e);
            throw new UnrecoverableJobException("job `" + jobId() + "` has data its processor cannot read: " + why, e);
        }
    }

    @Override
    public Uni<String> progress(int percent, String message) {
        return progress(percent, message, json.createObjectNode());
    }

    @Override
    public Uni<String> progress(int percent, String message, ObjectNode details) {
        return appendProgress(percent, message, details, null);
    }

    @Override
    public Uni<String> progress(int percent, String message, ObjectNode details, ObjectNode checkpoint) {
        return appendProgress(percent, message, details, checkpointText(checkpoint));
    }

    /** @param checkpoint the checkpoint's JSON text to record with the event, or {@code null} for none */
    private Uni<String> appendProgress(int percent, String message, ObjectNode details, String checkpoint) {
        if (details == null) {
            throw new IllegalArgumentException("`details` must not be null");
        }
        ObjectNode progress = json.createObjectNode().put("percent", Math.max(0, Math.min(100, percent)));
        if (message != null) {
            progress.put("message", message);
        }
        details.fields().forEachRemaining(field -> {
            if (!progress.has(field.getKey())) {
                progress.set(field.getKey(), field.getValue());
            }
        });
        ObjectNode last = progress.deepCopy();
        last.remove(TEXTS);
        return append("progress", progress, last.toString(), checkpoint);
    }

    @Override
    public Uni<String> publish(String type, ObjectNode data) {
        requireEvent(type, data);
        return append(type, data.deepCopy(), null);
    }

    private static void requireEvent(String type, ObjectNode data) {
        if (type == null || type.isBlank() || RESERVED.contains(type)) {
            throw new IllegalArgumentException("`type` must not be blank or one of " + RESERVED + ", was " + type);
        }
        if (data == null) {
            throw new IllegalArgumentException("`data` must not be null");
        }
    }

    @Override
    public Uni<String> publish(String type, ObjectNode data, ObjectNode checkpoint) {
        requireEvent(type, data);
        return append(type, data.deepCopy(), null, checkpointText(checkpoint));
    }

    @Override
    public Uni<Void> checkpoint(ObjectNode state) {
        String text = checkpointText(state);
        if (active.isCancelled()) {
            return Uni.createFrom().failure(new JobCancelledException(jobId(), active.cancelled().getNow(null)));
        }
        return fenced("checkpoint", worker.events().append(jobId(), fencingToken(), active.lockToken(),
                worker.workerId(), null, null, null, text))
                .replaceWithVoid();
    }

    @Override
    public Optional<ObjectNode> committedCheckpoint() {
        String text = active.checkpoint();
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of((ObjectNode) json.readTree(text));
        } catch (IOException | ClassCastException e) {
            throw new IllegalStateException("job `" + jobId() + "` has a checkpoint that is not a JSON object", e);
        }
    }

    @Override
    public Uni<String> resume() {
        String from = active.resumePoint();
        if (from == null) {
            throw new IllegalStateException("job `" + jobId() + "` has no resume point: nothing to continue");
        }
        return append("resume", JobEventData.resume(fencingToken(), worker.workerId(), job().attemptsStarted(), from,
                active.resumeReason()), null).invoke(id -> active.span().resumed(from));
    }

    @Override
    public Uni<List<JobEvent>> committedEvents() {
        return worker.committed().upTo(jobId(), active.resumePoint());
    }

    @Override
    public Optional<String> resumePoint() {
        return Optional.ofNullable(active.resumePoint());
    }

    private static String checkpointText(ObjectNode state) {
        if (state == null) {
            throw new IllegalArgumentException("`checkpoint` must not be null");
        }
        String text = state.toString();
        int bytes = text.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_CHECKPOINT_BYTES) {
            throw new IllegalArgumentException("`checkpoint` must be at most " + MAX_CHECKPOINT_BYTES
                    + " bytes as JSON, was " + bytes);
        }
        return text;
    }

    @Override
    public Uni<Integer> addChildren(List<FlowJob> children) {
        if (active.isCancelled()) {
            return Uni.createFrom().failure(new JobCancelledException(jobId(), active.cancelled().getNow(null)));
        }
        Span send = worker.tracing().send(worker.keys().queue(), active.span().context(), children.size());
        Uni<Integer> write = worker.children().add(worker.keys(), jobId(), active.job().tenant(),
                active.lockToken(), fencingToken(), children, JobTracing.traceParent(send));
        return Spans.ending(send, fenced("addChildren", write), (span, added) -> span.setAttribute(
                TraceAttributes.CHILDREN_ADDED, (long) added));
    }

    @Override
    public Uni<Void> moveToWaitingChildren() {
        if (active.isCancelled()) {
            return Uni.createFrom().failure(new JobCancelledException(jobId(), active.cancelled().getNow(null)));
        }
        QueueKeys keys = worker.keys();
        String id = jobId();
        Uni<Void> write = worker.children().moveToWaitingChildren(keys, id, active.lockToken(), fencingToken())
                .map(parked -> {
                    if (parked) {
                        throw new WaitingChildrenException(id);
                    }
                    return null;
                });
        return fenced("moveToWaitingChildren", write);
    }

    @Override
    public Context traceContext() {
        return active.span().context();
    }

    @Override
    public Uni<Map<String, String>> childrenValues() {
        return worker.children().childrenValues(worker.keys(), jobId());
    }

    @Override
    public Uni<Map<String, String>> failedChildren() {
        return worker.children().failedChildren(worker.keys(), jobId());
    }

    @Override
    public void reportTokens(long tokens) {
        active.reportTokens(tokens);
    }

    @Override
    public String attemptId() {
        return active.lockToken();
    }

    @Override
    public Uni<CancelReason> cancelled() {
        return Uni.createFrom().completionStage(active.cancelled());
    }

    @Override
    public Optional<CancelReason> cancelReason() {
        return Optional.ofNullable(active.cancelled().getNow(null));
    }

    private Uni<String> append(String type, ObjectNode data, String progress) {
        return append(type, data, progress, null);
    }

    private Uni<String> append(String type, ObjectNode data, String progress, String checkpoint) {
        ObjectNode event = JobEventData.of(type, fencingToken(), worker.workerId());
        event.setAll(data);
        if (active.isCancelled()) {
            return Uni.createFrom().failure(new JobCancelledException(jobId(), active.cancelled().getNow(null)));
        }
        return fenced(type, worker.events().append(jobId(), fencingToken(), active.lockToken(), worker.workerId(),
                type, event, progress, checkpoint));
    }

    /**
     * Sends a fenced write from the worker's lane (in the order writes are subscribed) and tells the attempt's span of
     * its answer. Once sent, a write is followed to its answer even when the attempt is cancelled meanwhile (a
     * cancellation before it was sent keeps it from being sent): a zombie's writes that were on their way when it
     * learned it lost the job are refused by Redis, and each refusal is an event of its span, which ends only after
     * them.
     *
     * @param what what the write is (an event's type, a script's name), for the attempt's span
     * @param write the write, not yet subscribed
     * @return the write's answer; a refusal also tells the worker it lost the job
     */
    private <T> Uni<T> fenced(String what, Uni<T> write) {
        return Uni.createFrom().emitter(emitter -> {
            AtomicBoolean gone = new AtomicBoolean();
            emitter.onTermination(() -> gone.set(true));
            worker.lane().execute(() -> {
                if (gone.get()) {
                    return; // cancelled before it was sent
                }
                AttemptSpan span = active.span();
                span.writeSent();
                AttemptPipeline.subscribe(write, item -> {
                    span.writeAnswered();
                    emitter.complete(item);
                }, failure -> {
                    if (meansOwnershipLost(failure)) {
                        span.refused(what, Failures.describe(failure));
                        // Answered after the attempt stopped: an event of its span only; the counter and the log say
                        // what stopped a zombie.
                        if (!active.isCancelled()) {
                            worker.ownershipLost(active, (QueueException) failure);
                        }
                    }
                    span.writeAnswered();
                    emitter.fail(failure);
                });
            });
        });
    }

    static boolean meansOwnershipLost(Throwable failure) {
        return failure instanceof OwnershipLostException
                || failure instanceof JobNotFoundException;
    }
}
