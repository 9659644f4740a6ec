package dev.fencedqueue.config;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/** Cross-field checks of the configuration, run at startup so that a bad combination fails fast. */
@ApplicationScoped
public class ConfigChecks {

    void check(@Observes StartupEvent event, WorkerConfig worker) {
        check(worker);
    }

    /**
     * Validates the relations between worker settings.
     *
     * @param worker the worker settings, must not be {@code null}
     * @throws IllegalStateException when the lock renew interval is not shorter than the lock duration,
     *         or a duration is not positive
     */
    public static void check(WorkerConfig worker) {
        requirePositive("fq.worker.lock-duration", worker.lockDuration());
        requirePositive("fq.worker.lock-renew-interval", worker.lockRenewInterval());
        requirePositive("fq.worker.stalled-interval", worker.stalledInterval());
        requirePositive("fq.worker.drain-delay", worker.drainDelay());
        if (worker.lockRenewInterval().compareTo(worker.lockDuration()) >= 0) {
            throw new IllegalStateException("`fq.worker.lock-renew-interval` (" + worker.lockRenewInterval()
                    + ") must be shorter than `fq.worker.lock-duration` (" + worker.lockDuration() + ")");
        }
    }

    private static void requirePositive(String name, java.time.Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalStateException("`" + name + "` must be positive, was " + value);
        }
    }
}
