package dev.fencedqueue.testing;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.worker.CancelReason;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import io.smallrye.mutiny.Uni;

/**
 * Wraps a real processor so that a test can hold the fenced writes of one worker: while the gate is
 * closed, {@code progress} and {@code publish} calls wait (the LLM keeps streaming into a buffer); once it
 * opens they go to Redis as they are. Counts the writes that Redis accepted and rejected.
 */
public final class GatedProcessor implements JobProcessor {

    private final JobProcessor delegate;
    private final AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(CompletableFuture.completedFuture(null));
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger rejected = new AtomicInteger();

    public GatedProcessor(JobProcessor delegate) {
        this.delegate = delegate;
    }

    /** Holds every write from now on. */
    public void close() {
        gate.compareAndSet(gate.get(), new CompletableFuture<>());
    }

    /** Lets held and later writes through. */
    public void open() {
        gate.get().complete(null);
    }

    public int acceptedWrites() {
        return accepted.get();
    }

    public int rejectedWrites() {
        return rejected.get();
    }

    @Override
    public String queue() {
        return delegate.queue();
    }

    @Override
    public Uni<Object> process(JobContext context) {
        return delegate.process(new GatedContext(context));
    }

    private final class GatedContext implements JobContext {
        private final JobContext context;

        GatedContext(JobContext context) {
            this.context = context;
        }

        @Override
        public Job job() {
            return context.job();
        }

        @Override
        public String jobId() {
            return context.jobId();
        }

        @Override
        public long fencingToken() {
            return context.fencingToken();
        }

        @Override
        public String attemptId() {
            return context.attemptId();
        }

        @Override
        public String workerId() {
            return context.workerId();
        }

        @Override
        public <T> T data(Class<T> type) {
            return context.data(type);
        }

        @Override
        public Uni<String> progress(int percent, String message) {
            return counted(Uni.createFrom().completionStage(gate.get()).chain(() -> context.progress(percent, message)));
        }

        @Override
        public Uni<String> progress(int percent, String message, ObjectNode details) {
            return counted(Uni.createFrom().completionStage(gate.get())
                    .chain(() -> context.progress(percent, message, details)));
        }

        @Override
        public Uni<String> progress(int percent, String message, ObjectNode details, ObjectNode checkpoint) {
            return counted(Uni.createFrom().completionStage(gate.get())
                    .chain(() -> context.progress(percent, message, details, checkpoint)));
        }

        @Override
        public Uni<String> publish(String type, ObjectNode data) {
            return counted(Uni.createFrom().completionStage(gate.get()).chain(() -> context.publish(type, data)));
        }

        @Override
        public Uni<String> publish(String type, ObjectNode data, ObjectNode checkpoint) {
            return counted(Uni.createFrom().completionStage(gate.get())
                    .chain(() -> context.publish(type, data, checkpoint)));
        }

        @Override
        public Uni<Void> checkpoint(ObjectNode state) {
            return Uni.createFrom().completionStage(gate.get()).chain(() -> context.checkpoint(state));
        }

        @Override
        public Optional<ObjectNode> committedCheckpoint() {
            return context.committedCheckpoint();
        }

        @Override
        public Uni<String> resume() {
            return counted(Uni.createFrom().completionStage(gate.get()).chain(context::resume));
        }

        @Override
        public Uni<List<JobEvent>> committedEvents() {
            return context.committedEvents();
        }

        @Override
        public Uni<Integer> addChildren(List<FlowJob> children) {
            return context.addChildren(children);
        }

        @Override
        public Uni<Void> moveToWaitingChildren() {
            return context.moveToWaitingChildren();
        }

        @Override
        public Uni<Map<String, String>> childrenValues() {
            return context.childrenValues();
        }

        @Override
        public Uni<Map<String, String>> failedChildren() {
            return context.failedChildren();
        }

        @Override
        public Optional<String> resumePoint() {
            return context.resumePoint();
        }

        @Override
        public Uni<CancelReason> cancelled() {
            return context.cancelled();
        }

        private Uni<String> counted(Uni<String> write) {
            return write.invoke(id -> accepted.incrementAndGet()).onFailure().invoke(f -> rejected.incrementAndGet());
        }
    }
}
