package dev.fencedqueue.bench;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import io.smallrye.mutiny.Uni;

/**
 * Sends many commands from the test thread, pipelined: at most {@code window} unanswered at any time
 * (the Vert.x client refuses more than its waiting-queue size), and waits for every reply.
 */
final class Pipeline {

    private Pipeline() {
    }

    /**
     * @param count how many commands
     * @param window most commands in flight
     * @param command builds command {@code i} (0-based); its {@code Uni} is subscribed at once
     * @return the wall time from the first send to the last reply, in nanoseconds
     * @throws IllegalStateException when a command failed or the replies took longer than two minutes
     */
    static long run(int count, int window, IntFunction<Uni<?>> command) {
        Semaphore slots = new Semaphore(window);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        try {
            for (int i = 0; i < count; i++) {
                slots.acquire();
                if (failure.get() != null) {
                    break;
                }
                command.apply(i).subscribe().with(reply -> slots.release(), error -> {
                    failure.compareAndSet(null, error);
                    slots.release();
                });
            }
            if (!slots.tryAcquire(window, Duration.ofMinutes(2).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("replies did not arrive within two minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a pipelined command failed: " + failure.get().getMessage(), failure.get());
        }
        return System.nanoTime() - start;
    }
}
