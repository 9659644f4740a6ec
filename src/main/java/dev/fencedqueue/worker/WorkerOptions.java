package dev.fencedqueue.worker;

import java.time.Duration;

import dev.fencedqueue.worker.WorkerConfig.ShutdownMode;

/**
 * Settings of one worker (see {@link WorkerConfig} for their meaning and defaults). Build them with
 * {@link #builder(String)}, or take them from the configuration with {@link #from(WorkerConfig, String)}.
 *
 * @param workerId id shown in job status and events
 * @param concurrency jobs run at the same time, at least 1
 * @param lockDuration lock time to live
 * @param lockRenewInterval lock renewal period, shorter than {@code lockDuration}
 * @param stalledInterval period of the stalled-job check
 * @param maxStalledCount stalls a job survives before it fails
 * @param drainDelay longest block on the marker before looking at the queue again
 * @param shutdownMode what a worker's {@code close()} does with running jobs
 * @param drainTimeout longest a draining worker waits for its running jobs
 * @param schedulerMissedAfter how late a job scheduler's tick may be produced before it counts as missed
 */
public record WorkerOptions(String workerId, int concurrency, Duration lockDuration, Duration lockRenewInterval,
        Duration stalledInterval, int maxStalledCount, Duration drainDelay, ShutdownMode shutdownMode,
        Duration drainTimeout, Duration schedulerMissedAfter) {

    /**
     * @throws IllegalArgumentException when {@code workerId} is blank, {@code concurrency} below 1, the renewal
     *         not shorter than the lock, {@code maxStalledCount} negative, {@code shutdownMode} {@code null}, or
     *         {@code drainTimeout} {@code null} or negative (the durations must not be {@code null})
     */
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
        if (schedulerMissedAfter == null || schedulerMissedAfter.isNegative()) {
            throw new IllegalArgumentException("`schedulerMissedAfter` must not be null or negative");
        }
    }

    /**
     * @param workerId the worker id, must not be blank (checked by {@link Builder#build()})
     * @return a builder with the defaults of {@link WorkerConfig}: concurrency 4, lock 30 s renewed every 10 s,
     *         stalled check every 15 s, one stall allowed, drain delay 5 s, hand-back on shutdown, drain timeout 25 s,
     *         a scheduler tick missed once 1 min late
     */
    public static Builder builder(String workerId) {
        return new Builder(workerId);
    }

    /**
     * @param config the worker configuration, must not be {@code null}
     * @param workerId the worker id to use, must not be blank
     * @return options taken from the configuration
     */
    public static WorkerOptions from(WorkerConfig config, String workerId) {
        return builder(workerId).concurrency(config.concurrency())
                .lock(config.lock().duration(), config.lock().renewInterval())
                .stalledCheck(config.stalled().interval(), config.stalled().maxCount())
                .drainDelay(config.drainDelay())
                .shutdown(config.shutdown().mode(), config.shutdown().drainTimeout())
                .schedulerMissedAfter(config.scheduler().missedAfter())
                .build();
    }

    /**
     * Builds {@link WorkerOptions}, starting from the defaults of {@link WorkerConfig}. Not thread-safe; the
     * values are checked by {@link #build()}.
     */
    public static final class Builder {

        private String workerId;
        private int concurrency = 4;
        private Duration lockDuration = Duration.ofSeconds(30);
        private Duration lockRenewInterval = Duration.ofSeconds(10);
        private Duration stalledInterval = Duration.ofSeconds(15);
        private int maxStalledCount = 1;
        private Duration drainDelay = Duration.ofSeconds(5);
        private ShutdownMode shutdownMode = ShutdownMode.HAND_BACK;
        private Duration drainTimeout = Duration.ofSeconds(25);
        private Duration schedulerMissedAfter = Duration.ofMinutes(1);

        private Builder(String workerId) {
            this.workerId = workerId;
        }

        /** @param value the worker id shown in job status and events */
        public Builder workerId(String value) {
            this.workerId = value;
            return this;
        }

        /** @param value jobs run at the same time, at least 1 */
        public Builder concurrency(int value) {
            this.concurrency = value;
            return this;
        }

        /**
         * @param duration the lock's time to live
         * @param renewInterval how often the worker renews its jobs' locks, shorter than {@code duration}
         */
        public Builder lock(Duration duration, Duration renewInterval) {
            this.lockDuration = duration;
            this.lockRenewInterval = renewInterval;
            return this;
        }

        /**
         * @param interval the period of the stalled-job check
         * @param maxStalled how many stalls a job survives before it fails, at least 0
         */
        public Builder stalledCheck(Duration interval, int maxStalled) {
            this.stalledInterval = interval;
            this.maxStalledCount = maxStalled;
            return this;
        }

        /** @param value the longest the worker blocks on the queue's marker before it looks at the queue again */
        public Builder drainDelay(Duration value) {
            this.drainDelay = value;
            return this;
        }

        /**
         * @param mode what stopping the worker does with its running jobs
         * @param timeout with {@link ShutdownMode#DRAIN}, the longest it waits for them, not negative
         */
        public Builder shutdown(ShutdownMode mode, Duration timeout) {
            this.shutdownMode = mode;
            this.drainTimeout = timeout;
            return this;
        }

        /** @param value how late a job scheduler's tick may be produced before it counts as missed */
        public Builder schedulerMissedAfter(Duration value) {
            this.schedulerMissedAfter = value;
            return this;
        }

        /**
         * @return the options
         * @throws IllegalArgumentException as {@link WorkerOptions#WorkerOptions} does
         */
        public WorkerOptions build() {
            return new WorkerOptions(workerId, concurrency, lockDuration, lockRenewInterval, stalledInterval,
                    maxStalledCount, drainDelay, shutdownMode, drainTimeout, schedulerMissedAfter);
        }
    }
}
