package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.fencedqueue.BlockingInvocation;
import io.smallrye.mutiny.Context;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.mutiny.subscription.Cancellable;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;

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
     * Subscribes to a {@code Uni} with plain callbacks. {@code subscribe().with} would decorate both callbacks, which
     * with context propagation on (Quarkus turns it on) captures every propagated context for each callback of each
     * job; the worker needs none of them, as its callbacks only hand the outcome to its own context. Used for each
     * attempt (from {@link #of}) and each fenced write of an attempt.
     *
     * @param uni the {@code Uni}, must not be {@code null}
     * @param onItem told its item, unless cancelled first, must not be {@code null}; what it throws is dropped
     *        ({@link Infrastructure#handleDroppedException})
     * @param onFailure told its failure, unless cancelled first, must not be {@code null}; what it throws is dropped
     * @return cancels the subscription; the callbacks are not told after that
     */
    static <T> Cancellable subscribe(Uni<T> uni, Consumer<? super T> onItem, Consumer<Throwable> onFailure) {
        return uni.subscribe().withSubscriber(new CallbackSubscriber<T>(onItem, onFailure));
    }

    /**
     * A {@link UniSubscriber} that tells one of two callbacks, at most once, and that its {@link #cancel()} stops: the
     * subscriber {@code subscribe().with} builds, through Mutiny's public API, without decorating the callbacks. It
     * holds one subscriber context for the whole subscription, empty at first, which the operators upstream read and
     * write (the LLM call's span puts its {@code traceparent} there); {@link UniSubscriber#context()}'s default would
     * hand out a new empty one at each call.
     */
    private static final class CallbackSubscriber<T> implements UniSubscriber<T>, Cancellable {

        /** Stands for a subscription that ended: told, or cancelled. */
        private static final UniSubscription DONE = () -> {
        };

        private final Consumer<? super T> onItem;
        private final Consumer<Throwable> onFailure;
        /** {@code null} until subscribed, then the upstream's subscription, then {@link #DONE}. */
        private final AtomicReference<UniSubscription> subscription = new AtomicReference<>();
        private final Context context = Context.empty();

        CallbackSubscriber(Consumer<? super T> onItem, Consumer<Throwable> onFailure) {
            this.onItem = onItem;
            this.onFailure = onFailure;
        }

        @Override
        public Context context() {
            return context;
        }

        @Override
        public void onSubscribe(UniSubscription upstream) {
            if (!subscription.compareAndSet(null, upstream)) {
                upstream.cancel(); // cancelled before it was subscribed, or a second subscription
            }
        }

        @Override
        public void onItem(T item) {
            if (subscription.getAndSet(DONE) != DONE) {
                try {
                    onItem.accept(item);
                } catch (Throwable e) {
                    Infrastructure.handleDroppedException(e);
                }
            }
        }

        @Override
        public void onFailure(Throwable failure) {
            if (subscription.getAndSet(DONE) != DONE) {
                try {
                    onFailure.accept(failure);
                } catch (Throwable e) {
                    Infrastructure.handleDroppedException(e);
                }
            }
        }

        @Override
        public void cancel() {
            UniSubscription upstream = subscription.getAndSet(DONE);
            if (upstream != null && upstream != DONE) {
                upstream.cancel();
            }
        }
    }
}
