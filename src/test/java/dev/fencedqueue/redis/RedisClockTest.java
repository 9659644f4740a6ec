package dev.fencedqueue.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The worker's estimate of the Redis clock converges under load: a busy machine may never see a round trip under a
 * couple of milliseconds, and the first sample may be a slow one. Samples here are built from a true offset and a
 * round trip whose send-to-read and read-to-reply halves are unequal, as a loaded machine makes them.
 */
class RedisClockTest {

    private static final long TRUE_OFFSET_MICROS = 7_000;
    private static final long SECOND_NANOS = 1_000_000_000L;

    private final RedisClock clock = new RedisClock();
    /** Real time, µs; Redis's clock is this plus the true offset, the JVM's wall clock this plus its own error. */
    private long realMicros = 1_800_000_000_000_000L;
    private long jvmErrorMicros = 0;
    private long monotonicNanos = 0;

    @Test
    void convergesOnTheQuickestRoundTripWhenNoneIsUnderTwoMilliseconds() {
        sample(80_000, 70_000); // a first sample slowed on its way back: 30 ms off
        for (int i = 0; i < 20; i++) {
            sample(5_000, 3_000); // the usual round trip of a busy machine: 0.5 ms off
        }
        assertThat(Math.abs(clock.offsetMicros() - TRUE_OFFSET_MICROS)).as("error, µs").isLessThanOrEqualTo(2_500);
    }

    @Test
    void keepsTheQuickestSampleAgainstSlowerOnes() {
        sample(4_000, 2_000);
        long best = clock.offsetMicros();
        sample(60_000, 55_000);
        sample(30_000, 1_000);
        assertThat(clock.offsetMicros()).isEqualTo(best);
    }

    @Test
    void forgetsAQuickSampleOnceItIsOld() {
        sample(1_000, 500); // quick, then the JVM's wall clock is stepped back by 40 ms (an NTP step)
        jvmErrorMicros -= 40_000;
        for (int i = 0; i < 200; i++) {
            monotonicNanos += SECOND_NANOS;
            sample(4_000, 2_000);
        }
        assertThat(Math.abs(clock.offsetMicros() - (TRUE_OFFSET_MICROS + 40_000))).as("error after the step, µs")
                .isLessThanOrEqualTo(2_000);
    }

    @Test
    void forgetsAQuickSampleAfterALongSilence() {
        sample(1_000, 500);
        jvmErrorMicros -= 40_000;
        monotonicNanos += 10 * RedisClock.WINDOW_NANOS; // no activation for a long time
        sample(6_000, 3_000);
        assertThat(Math.abs(clock.offsetMicros() - (TRUE_OFFSET_MICROS + 40_000))).as("error after the step, µs")
                .isLessThanOrEqualTo(3_000);
    }

    @Test
    void startsAtZeroOffset() {
        assertThat(clock.offsetMicros()).isZero();
    }

    /**
     * One sample: Redis reads its clock {@code toRedis} µs after the send and the reply arrives {@code roundTrip} µs
     * after the send.
     */
    private void sample(long roundTripMicros, long toRedisMicros) {
        long redisMicros = realMicros + toRedisMicros + TRUE_OFFSET_MICROS;
        realMicros += roundTripMicros;
        monotonicNanos += roundTripMicros * 1_000;
        clock.sample(redisMicros, roundTripMicros, realMicros + jvmErrorMicros, monotonicNanos);
        realMicros += 1_000; // the next sample a millisecond later
        monotonicNanos += 1_000_000;
    }
}
