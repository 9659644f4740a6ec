package dev.fencedqueue.redis;

import java.time.Duration;
import java.util.function.Consumer;

import io.smallrye.mutiny.Uni;

/**
 * The one retry policy of fenced-queue's reconnect loops: the event tailers' {@code XREAD}, the revoke subscriptions
 * and the workers' fetch. Exponential back-off from {@link #FIRST_DELAY} to {@link #MAX_DELAY} (Mutiny's
 * {@code retry().withBackOff}, with its jitter), for as long as the loop runs: a loop stops by cancelling its
 * subscription. One policy, so that every loop comes back at the same pace once Redis is back, and none keeps a Redis
 * that is down or restarting busy with reconnects.
 */
public final class Reconnect {

    /** The wait before the first retry. */
    public static final Duration FIRST_DELAY = Duration.ofMillis(100);
    /** The longest wait between two tries. */
    public static final Duration MAX_DELAY = Duration.ofSeconds(5);

    private Reconnect() {
    }

    /**
     * @param attempt one try, subscribed again for each retry (build what must be fresh, a request or a connection,
     *        inside it, e.g. with {@code Uni.createFrom().deferred})
     * @param onFailure told of each failed try before the wait (to log it, drop a connection); must not throw
     * @return the first item a try emits; it never fails (cancel the subscription to stop retrying)
     */
    public static <T> Uni<T> retrying(Uni<T> attempt, Consumer<Throwable> onFailure) {
        return attempt.onFailure().invoke(onFailure).onFailure().retry().withBackOff(FIRST_DELAY, MAX_DELAY)
                .indefinitely();
    }

    /**
     * The wait before retry number {@code failures} of a loop that schedules its own retries (the worker's fetch,
     * which must give back its reserved slots between tries): the same bounds, doubling, without jitter.
     *
     * @param failures failed tries so far, 1 or more
     * @return the wait, ms
     */
    public static long delayMillis(int failures) {
        return Math.min(MAX_DELAY.toMillis(), FIRST_DELAY.toMillis() << Math.min(Math.max(failures - 1, 0), 16));
    }
}
