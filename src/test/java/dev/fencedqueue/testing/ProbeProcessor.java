package dev.fencedqueue.testing;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import io.smallrye.mutiny.Uni;

/**
 * A processor for worker tests: records every attempt it is given, how many run at the same time, and
 * which attempts the worker cancelled. By default ({@link #held}) an attempt runs until the test ends it
 * with {@link Attempt#complete} or {@link Attempt#fail}; {@link #of} runs a given body instead.
 */
public final class ProbeProcessor implements JobProcessor {

    /** One attempt of a job, as the processor saw it. */
    public static final class Attempt {

        private final JobContext context;
        private final CompletableFuture<Object> outcome = new CompletableFuture<>();
        private final CompletableFuture<Void> cancelled = new CompletableFuture<>();

        Attempt(JobContext context) {
            this.context = context;
        }

        /** @return the context the worker gave this attempt */
        public JobContext context() {
            return context;
        }

        /** @return the fencing token of this attempt */
        public long fencingToken() {
            return context.fencingToken();
        }

        /** Ends a held attempt with a result. */
        public void complete(Object result) {
            outcome.complete(result);
        }

        /** Ends a held attempt with a failure. */
        public void fail(Throwable failure) {
            outcome.completeExceptionally(failure);
        }

        /** @return whether the worker cancelled this attempt's {@code Uni} */
        public boolean isCancelled() {
            return cancelled.isDone();
        }

        Uni<Object> held() {
            return Uni.createFrom().emitter(emitter -> outcome.whenComplete((result, failure) -> {
                if (failure != null) {
                    emitter.fail(failure);
                } else {
                    emitter.complete(result);
                }
            }));
        }
    }

    private final String queue;
    private final Function<Attempt, Uni<Object>> body;
    private final List<Attempt> attempts = new CopyOnWriteArrayList<>();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();

    private ProbeProcessor(String queue, Function<Attempt, Uni<Object>> body) {
        this.queue = queue;
        this.body = body;
    }

    /** @return a processor whose attempts run until the test ends them */
    public static ProbeProcessor held(String queue) {
        return new ProbeProcessor(queue, Attempt::held);
    }

    /** @return a processor whose attempts run {@code body} (which may also throw) */
    public static ProbeProcessor of(String queue, Function<JobContext, Uni<Object>> body) {
        return new ProbeProcessor(queue, attempt -> body.apply(attempt.context()));
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public Uni<Object> process(JobContext context) {
        Attempt attempt = new Attempt(context);
        attempts.add(attempt);
        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        return Uni.createFrom().deferred(() -> body.apply(attempt))
                .onCancellation().invoke(() -> attempt.cancelled.complete(null))
                .onTermination().invoke(running::decrementAndGet);
    }

    /** @return every attempt so far, in the order they started */
    public List<Attempt> attempts() {
        return List.copyOf(attempts);
    }

    /** @return the attempt with index {@code i} (0 = first) */
    public Attempt attempt(int i) {
        return attempts.get(i);
    }

    /** @return how many attempts have started */
    public int started() {
        return attempts.size();
    }

    /** @return attempts running now (started, not yet ended or cancelled) */
    public int running() {
        return running.get();
    }

    /** @return the most attempts that ever ran at the same time */
    public int maxRunning() {
        return maxRunning.get();
    }

    /** @return the job ids of the attempts so far, in the order they started */
    public List<String> startedJobIds() {
        return attempts.stream().map(attempt -> attempt.context().jobId()).toList();
    }
}
