package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before the next attempt of a failed job (BullMQ's {@code backoff} option).
 *
 * @param type {@code fixed} (always {@code delay}), {@code exponential} ({@code delay * 2^(attemptsMade - 1)}),
 *        or {@code custom} (the processor's {@code backoff} hook decides, see
 *        {@code dev.fencedqueue.worker.JobProcessor#backoff})
 * @param delay the base delay; zero retries at once
 * @param jitter fraction of the delay, 0 to 1, by which each wait is randomly shortened (0 = none)
 */
public record Backoff(Type type, Duration delay, double jitter) {

    /** The backoff strategies. */
    public enum Type {
        FIXED,
        EXPONENTIAL,
        CUSTOM
    }

    /** No wait between attempts. */
    public static final Backoff NONE = new Backoff(Type.FIXED, Duration.ZERO, 0);

    public Backoff {
        if (type == null) {
            throw new IllegalArgumentException("`backoff.type` must not be null");
        }
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("`backoff.delay` must not be negative");
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("`backoff.jitter` must be between 0 and 1");
        }
    }

    /** @return a fixed backoff of {@code delay} */
    public static Backoff fixed(Duration delay) {
        return new Backoff(Type.FIXED, delay, 0);
    }

    /** @return an exponential backoff starting at {@code delay} */
    public static Backoff exponential(Duration delay) {
        return new Backoff(Type.EXPONENTIAL, delay, 0);
    }

    /** @return a backoff decided by the processor's hook; {@code delay} is what the default hook returns */
    public static Backoff custom(Duration delay) {
        return new Backoff(Type.CUSTOM, delay, 0);
    }

    /** @return this backoff with the given jitter (fraction of the delay, 0 to 1) */
    public Backoff withJitter(double value) {
        return new Backoff(type, delay, value);
    }

    /**
     * @param attemptsMade attempts made so far, the failed one included (1 after the first failure)
     * @return the wait before the next attempt, in ms
     */
    public long delayMillis(int attemptsMade) {
        long base = delay.toMillis();
        if (type == Type.EXPONENTIAL) {
            int exponent = Math.min(Math.max(attemptsMade - 1, 0), 30);
            base = Math.min(base << exponent, Duration.ofDays(1).toMillis());
        }
        if (jitter > 0 && base > 0) {
            base -= (long) (ThreadLocalRandom.current().nextDouble() * jitter * base);
        }
        return base;
    }
}
