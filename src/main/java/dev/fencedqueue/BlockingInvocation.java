package dev.fencedqueue;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;

/**
 * Runs blocking work off the event loop: a blocking processor's attempt, one blocking step of a chunked job, a
 * call to PostgreSQL (the bulk sink, notifications, the archive).
 * The work is called, and the {@code Uni} it returns subscribed, on a thread of the given executor. Cancelling
 * the returned {@code Uni} cancels that subscription and interrupts the thread while the work still runs on it.
 */
public final class BlockingInvocation {

    private BlockingInvocation() {
    }

    /**
     * @param attempt calls the processor, must not be {@code null}; what it throws fails the returned
     *        {@code Uni}, as does the failure of the {@code Uni} it returns
     * @param executor where to run it (virtual threads or a worker pool), must not be {@code null}
     * @param <T> the result type
     * @return the attempt's result; fails with {@link RejectedExecutionException} when the executor refuses
     *         the task (it was shut down)
     */
    public static <T> Uni<T> on(Supplier<Uni<T>> attempt, ExecutorService executor) {
        return Uni.createFrom().deferred(() -> {
            AtomicBoolean cancelled = new AtomicBoolean();
            AtomicReference<Future<?>> task = new AtomicReference<>();
            AtomicReference<Cancellable> subscription = new AtomicReference<>();
            return Uni.createFrom().<T>emitter(emitter -> task.set(executor.submit(() -> {
                if (cancelled.get()) {
                    return;
                }
                try {
                    subscription.set(attempt.get().subscribe().with(emitter::complete, emitter::fail));
                } catch (Throwable failure) {
                    emitter.fail(failure);
                }
            }))).onCancellation().invoke(() -> {
                cancelled.set(true);
                Future<?> running = task.get();
                if (running != null) {
                    running.cancel(true);
                }
                Cancellable inner = subscription.get();
                if (inner != null) {
                    inner.cancel();
                }
            });
        });
    }

    /**
     * Runs one blocking call off the event loop, as {@link #on(Supplier, ExecutorService)} does.
     *
     * @param call the blocking call, must not be {@code null}; what it throws fails the returned {@code Uni}
     * @param executor where to run it, must not be {@code null}
     * @param <T> the result type
     * @return the call's result ({@code null} allowed)
     */
    public static <T> Uni<T> call(Callable<T> call, ExecutorService executor) {
        return on(() -> {
            try {
                return Uni.createFrom().item(call.call());
            } catch (Exception e) {
                return Uni.createFrom().failure(e);
            }
        }, executor);
    }
}
