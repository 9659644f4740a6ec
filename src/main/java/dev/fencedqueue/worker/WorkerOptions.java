package dev.fencedqueue.worker;

import dev.fencedqueue.config.ShutdownMode;
import java.time.Duration;

import dev.fencedqueue.config.WorkerConfig;

/**
 * Settings of one worker (see {@link WorkerConfig} for their meaning and defaults).
 *
 * @param workerId id shown in job status and events
 * @param concurrency jobs run at the same time, at least 1
 * @param lockDuration lock time to live
 * @param lockRenewInterval lock renewal period, shorter than {@code lockDuration}
 * @param stalledInterval period of the stalled-job check
 * @param maxStalledCount stalls a job survives before it fails
 * @param drainDelay longest block on the marker before looking at the queue again
 * @param shutdownMode what {@link Worker#close()} does with running jobs
 * @param drainTimeout longest a draining worker waits for its running jobs
 */
public record WorkerOptions(String workerId, int concurrency, Duration lockDuration, Duration lockRenewInterval,
        Duration stalledInterval, int maxStalledCount, Duration drainDelay, ShutdownMode shutdownMode,
        Duration drainTimeout) {

    public WorkerOptions {
        if (workerId == null || workerId.isBlank()) {
            throw new IllegalArgumentException("`workerId` must not be blank");
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("`concurrency` must be at least 1, was " + concurrency);
        }
        if (lockRenewInterval.compareTo(lockDuration) >= 0) {
            throw new IllegalArgumentException("`lockRenewInterval` must be shorter than `lockDuration`");
        }
        if (maxStalledCount < 0) {
            throw new IllegalArgumentException("`maxStalledCount` must not be negative");
        }
        if (shutdownMode == null || drainTimeout == null || drainTimeout.isNegative()) {
            throw new IllegalArgumentException("`shutdownMode` must not be null and `drainTimeout` not negative");
        }
    }

    /** Options that hand running jobs back on shutdown (drain timeout 25 s, unused). */
    public WorkerOptions(String workerId, int concurrency, Duration lockDuration, Duration lockRenewInterval,
            Duration stalledInterval, int maxStalledCount, Duration drainDelay) {
        this(workerId, concurrency, lockDuration, lockRenewInterval, stalledInterval, maxStalledCount, drainDelay,
                ShutdownMode.HAND_BACK, Duration.ofSeconds(25));
    }

    /**
     * @param config the worker configuration
     * @param workerId the worker id to use
     * @return options taken from the configuration
     */
    public static WorkerOptions from(WorkerConfig config, String workerId) {
        return new WorkerOptions(workerId, config.concurrency(), config.lockDuration(), config.lockRenewInterval(),
                config.stalledInterval(), config.maxStalledCount(), config.drainDelay(), config.shutdownMode(),
                config.drainTimeout());
    }

    public WorkerOptions withWorkerId(String id) {
        return new WorkerOptions(id, concurrency, lockDuration, lockRenewInterval, stalledInterval, maxStalledCount,
                drainDelay, shutdownMode, drainTimeout);
    }

    public WorkerOptions withConcurrency(int value) {
        return new WorkerOptions(workerId, value, lockDuration, lockRenewInterval, stalledInterval, maxStalledCount,
                drainDelay, shutdownMode, drainTimeout);
    }

    public WorkerOptions withDrainDelay(Duration value) {
        return new WorkerOptions(workerId, concurrency, lockDuration, lockRenewInterval, stalledInterval,
                maxStalledCount, value, shutdownMode, drainTimeout);
    }

    public WorkerOptions withShutdown(ShutdownMode mode, Duration timeout) {
        return new WorkerOptions(workerId, concurrency, lockDuration, lockRenewInterval, stalledInterval,
                maxStalledCount, drainDelay, mode, timeout);
    }
}
