package dev.fencedqueue.redis;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.smallrye.mutiny.Uni;

/**
 * The retry policies of fenced-queue's Redis clients, named in one place.
 * <ul>
 * <li>The reconnect loops (the event tailers' {@code XREAD}, the revoke subscriptions and the workers' fetch):
 * exponential back-off from {@link #FIRST_DELAY} to {@link #MAX_DELAY} (Mutiny's {@code retry().withBackOff}, with its
 * jitter), for as long as the loop runs: a loop stops by cancelling its subscription. One policy, so that every loop
 * comes back at the same pace once Redis is back, and none keeps a Redis that is down or restarting busy with
 * reconnects ({@link #retrying}, {@link #delayMillis}).</li>
 * <li>The finishing writes (a job's completion, failure or hand-back): exponential back-off from
 * {@link #FINISH_FIRST_DELAY} to {@link #FINISH_MAX_DELAY}, only while Redis is unreachable and only until a deadline
 * (the lock duration), so that a Redis restart does not turn a finished job into a rerun ({@link #finishing}).</li>
 * </ul>
 */
public final class Reconnect {

    /** The wait before the first retry. */
    public static final Duration FIRST_DELAY = Duration.ofMillis(100);
    /** The longest wait between two tries. */
    public static final Duration MAX_DELAY = Duration.ofSeconds(5);
    /** The wait before a finishing write is resubscribed the first time. */
    public static final Duration FINISH_FIRST_DELAY = Duration.ofMillis(100);
    /**
     * The longest wait between two tries of a finishing write: shorter than a loop's {@link #MAX_DELAY}, as the write
     * must land before its deadline and a finished job waits for it.
     */
    public static final Duration FINISH_MAX_DELAY = Duration.ofSeconds(2);

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

    /**
     * The policy of a finishing write: subscribed at once (the caller's resend, once a first sending failed), then
     * resubscribed while it fails with an {@code unreachable} failure, with exponential back-off from
     * {@link #FINISH_FIRST_DELAY} to {@link #FINISH_MAX_DELAY} (with Mutiny's jitter), for up to {@code deadline}.
     *
     * @param write the write, subscribed again for each try, must not be {@code null}
     * @param unreachable which failures mean Redis could not be reached (retried), must not be {@code null}; any other
     *        failure (a Redis error) fails the write at once
     * @param deadline how long to keep trying (the lock duration), must not be {@code null}
     * @return the write's first item; fails with the last failure once {@code deadline} has passed
     */
    public static <T> Uni<T> finishing(Uni<T> write, Predicate<? super Throwable> unreachable, Duration deadline) {
        return write.onFailure(unreachable).retry().withBackOff(FINISH_FIRST_DELAY, FINISH_MAX_DELAY)
                .expireIn(deadline.toMillis());
    }
}
