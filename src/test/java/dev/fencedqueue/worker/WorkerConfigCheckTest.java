package dev.fencedqueue.worker;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The check beside {@link WorkerConfig} that no constraint of one option holds: a lock renewed before it expires. */
class WorkerConfigCheckTest {

    @Test
    void refusesALockRenewedNoMoreOftenThanItExpires() {
        assertThatThrownBy(() -> WorkerConfig.check(new Lock(Duration.ofSeconds(1), Duration.ofSeconds(2))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("`fq.worker.lock.renew-interval` (PT2S) must be shorter than `fq.worker.lock.duration` (PT1S)");
        assertThatThrownBy(() -> WorkerConfig.check(new Lock(Duration.ofSeconds(1), Duration.ofSeconds(1))))
                .isInstanceOf(IllegalStateException.class);
        assertThatCode(() -> WorkerConfig.check(new Lock(Duration.ofSeconds(1), Duration.ofMillis(300))))
                .doesNotThrowAnyException();
    }

    record Lock(Duration duration, Duration renewInterval) implements WorkerConfig.Lock {
    }
}
