package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.fencedqueue.BlockingInvocation;
import io.smallrye.mutiny.Context;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.helpers.UniCallbackSubscriber;
import io.smallrye.mutiny.subscription.Cancellable;

/**
 * Builds the {@code Uni} of one attempt: the processor called on the worker's event loop, or on a thread of its
 * own for a blocking processor ({@link BlockingInvocation}), failing with {@link JobTimeoutException} once the
 * job's timeout passes (the attempt is cancelled and writes no more; its failure is still recorded).
 */
final class AttemptPipeline {

    private AttemptPipeline() {
    }

    /**
     * @param processor the processor, must not be {@code null}
     * @param context the attempt's context, must not be {@code null}
     * @param running the attempt's state in the worker, must not be {@code null}
     * @param blockingExecutor where a blocking processor runs; {@code null} for one that does not block
     * @return the attempt, not yet subscribed
     */
    static Uni<Object> of(JobProcessor processor, JobContext context, ActiveJob running, ExecutorService blockingExecutor) {
        Supplier<Uni<Object>> attempt = () -> processor.process(context);
        Uni<Object> pipeline = blockingExecutor == null ? called(processor, context)
                : BlockingInvocation.on(attempt, blockingExecutor);
        long timeoutMs = running.job().timeout();
        if (timeoutMs <= 0) {
            return pipeline;
        }
        Duration timeout = Duration.ofMillis(timeoutMs);
        return pipeline.ifNoItem().after(timeout).failWith(() -> {
            running.cancelled().complete(CancelReason.TIMEOUT);
            return new JobTimeoutException(running.id(), timeout);
        });
    }

    /**
     * Calls a processor that does not block, now (its subscription follows at once): what
     * {@code Uni.createFrom().deferred} would do, without one more {@code Uni} per attempt.
     *
     * @return the processor's {@code Uni}, or a failed one when it threw or returned {@code null}
     */
    private static Uni<Object> called(JobProcessor processor, JobContext context) {
        Uni<Object> attempt;
        try {
            attempt = processor.process(context);
        } catch (Throwable e) { // as deferred would: whatever the processor throws fails the attempt
            return Uni.createFrom().failure(e);
        }
        return attempt != null ? attempt
                : Uni.createFrom().failure(new NullPointerException("the processor returned no Uni (null)"));
    }

    /**
     * Subscribes to an attempt with plain callbacks. {@code subscribe().with} would decorate both callbacks, which
     * with context propagation on (Quarkus turns it on) captures every propagated context for each callback of each
     * job; the worker needs none of them, as its callbacks only hand the outcome to its own context.
     *
     * @param attempt the attempt, from {@link #of}
     * @param onItem told the processor's result, unless cancelled first
     * @param onFailure told why the attempt failed, unless cancelled first
     * @return cancels the attempt; the callbacks are not told after that
     */
    static Cancellable subscribe(Uni<Object> attempt, Consumer<Object> onItem, Consumer<Throwable> onFailure) {
        return attempt.subscribe().withSubscriber(new UniCallbackSubscriber<>(onItem, onFailure, Context.empty()));
    }
}
