package dev.fencedqueue.redis;

import java.util.concurrent.TimeUnit;

/**
 * The Redis clock as this JVM sees it: the offset of Redis {@code TIME} from this JVM's wall clock, estimated from
 * the replies of scripts that read {@code TIME} while they run. Redis read its clock somewhere between
 * the send and the reply, so a sample's error is at most half its round trip (Cristian's algorithm). The estimate is
 * that of the sample with the shortest round trip among the recent ones (NTP's minimum-delay clock filter, RFC 5905
 * section 10): a quicker sample replaces it at once, whatever its round trip, so the estimate converges on a machine
 * too busy for any round trip under a millisecond or two; and a sample is forgotten within two windows, so that a step
 * of either clock is followed. Not thread-safe: used on one context (a worker's fetcher keeps one).
 */
public final class RedisClock {

    /** How long a sample stays a candidate: between one and two windows. */
    public static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** The quickest sample of the current window and of the one before it. */
    private Sample current;
    private Sample previous;
    private long windowStartNanos;

    /** One sample: its offset (µs) and round trip (µs). */
    private record Sample(long offsetMicros, long roundTripMicros) {
    }

    /**
     * Takes one sample.
     *
     * @param redisMicros the Redis clock the script read, µs since the epoch
     * @param roundTripMicros time from the send to the reply, µs (0 or more)
     * @param wallMicros this JVM's wall clock at the reply, µs since the epoch
     * @param monotonicNanos {@link System#nanoTime()} at the reply, which ages samples
     */
    public void sample(long redisMicros, long roundTripMicros, long wallMicros, long monotonicNanos) {
        Sample sample = new Sample(redisMicros - (wallMicros - roundTripMicros / 2), roundTripMicros);
        long age = monotonicNanos - windowStartNanos;
        if (current == null || age >= WINDOW_NANOS) {
            previous = age < 2 * WINDOW_NANOS ? current : null; // the window before is the last one, or too old
            current = sample;
            windowStartNanos = monotonicNanos;
        } else if (roundTripMicros <= current.roundTripMicros) {
            current = sample;
        }
    }

    /** @return Redis clock minus this JVM's wall clock, µs; 0 before the first sample */
    public long offsetMicros() {
        if (current == null) {
            return 0;
        }
        return previous != null && previous.roundTripMicros < current.roundTripMicros
                ? previous.offsetMicros
                : current.offsetMicros;
    }
}
