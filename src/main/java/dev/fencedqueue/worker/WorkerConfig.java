package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * Worker runtime settings ({@code fq.worker.*}), shared by every worker this instance runs. The defaults are BullMQ's
 * advice for ~10-minute jobs such as research jobs: a short lock kept alive by renewal rather than a lock as long as
 * the job. Each option is checked where it is declared; a bad value stops start-up naming it.
 */
@ConfigMapping(prefix = "fq.worker")
public interface WorkerConfig {

    /** Whether this instance runs workers at all; {@code false} makes it an API-only instance. */
    @WithDefault("true")
    boolean enabled();

    /** Worker id shown in job status and events; defaults to the host name plus a random suffix. */
    Optional<String> id();

    /** How many jobs one worker runs at the same time (slots). */
    @WithDefault("4")
    @Min(1)
    int concurrency();

    /**
     * Longest a worker blocks on the queue's marker before it looks at the queue again (a safety net for
     * lost wake-ups; workers are normally woken by the marker and by timers at delayed jobs' due times).
     */
    @WithDefault("5s")
    @DurationMin(inclusive = false, message = "must be positive")
    Duration drainDelay();

    /**
     * A queue this instance also serves with a no-op processor, which completes each job at once without work
     * (its {@code returnValue} is {@code null}). It measures what the queue itself costs on a deployment, with no
     * LLM or database in the way (the benchmark's native and JVM throughput), and smoke-tests a new deployment's
     * Redis path. Empty (the default): none. Ignored when {@link #enabled()} is {@code false}.
     */
    Optional<String> noopQueue();

    /**
     * Whether blocking processors run on virtual threads when the JDK has them (21+, and native executables);
     * {@code false}, or an older JDK: on Quarkus's worker pool, at most {@code quarkus.thread-pool.max-threads}
     * threads. Turn it off for a library that pins virtual threads (blocks inside {@code synchronized}).
     */
    @WithDefault("true")
    boolean virtualThreads();

    /** A job's lock ({@code fq.worker.lock.*}). */
    Lock lock();

    /** The stalled-job check ({@code fq.worker.stalled.*}). */
    Stalled stalled();

    /** What a stopping worker does with its running jobs ({@code fq.worker.shutdown.*}). */
    Shutdown shutdown();

    /** The job schedulers' ticks, which every worker of a queue produces ({@code fq.worker.scheduler.*}). */
    Scheduler scheduler();

    /**
     * A job's lock ({@code fq.worker.lock.*}): a short lock kept alive by renewal rather than a lock as long as the
     * job. {@link #check(Lock)} holds the renewal shorter than the lock.
     */
    interface Lock {

        /** How long a job's lock lives without renewal; a job whose lock expired is stalled. */
        @WithDefault("30s")
        @DurationMin(inclusive = false, message = "must be positive")
        Duration duration();

        /**
         * How often a worker renews its jobs' locks and checks their fencing tokens; must be shorter than the lock
         * duration.
         */
        @WithDefault("10s")
        @DurationMin(inclusive = false, message = "must be positive")
        Duration renewInterval();
    }

    /** The fleet-wide stalled-job check ({@code fq.worker.stalled.*}). */
    interface Stalled {

        /** How often the fleet-wide stalled-job check runs. */
        @WithDefault("15s")
        @DurationMin(inclusive = false, message = "must be positive")
        Duration interval();

        /** How many times a job may stall before it fails instead of going back to wait. */
        @WithDefault("1")
        @Min(0)
        int maxCount();
    }

    /**
     * What a stopping worker (SIGTERM, Kubernetes pod deletion) does with its running jobs
     * ({@code fq.worker.shutdown.*}).
     */
    interface Shutdown {

        /**
         * {@code hand-back} cancels the running jobs and returns them to the queue at once, so another instance resumes
         * them within about a second; {@code drain} lets them finish for up to {@link #drainTimeout()} first.
         */
        @WithDefault("hand-back")
        ShutdownMode mode();

        /**
         * Longest a draining worker waits for its running jobs before it hands back the rest; keep it under
         * Kubernetes' {@code terminationGracePeriodSeconds} (30s by default).
         */
        @WithDefault("25s")
        Duration drainTimeout();
    }

    /** Job schedulers ({@code fq.worker.scheduler.*}). */
    interface Scheduler {

        /**
         * How late a job scheduler's tick may be produced before it counts as missed (no instance produced it in time:
         * all were down, Redis restarted): a later tick is produced late, and several due ticks one after the other; a
         * missed tick follows its scheduler's {@code missed} policy ({@code run-once} or {@code skip}) and the
         * scheduler goes on from its first tick after now.
         */
        @WithDefault("1m")
        Duration missedAfter();

        /**
         * The shortest {@code every} a job scheduler may be given over the operator API ({@code PUT
         * /admin/schedulers/{id}}): a scheduler produces a job per tick, stored, run and retained like any other, so a
         * shorter interval floods the queue rather than schedules it. A shorter {@code every} is refused with 400
         * naming {@code every}.
         */
        @WithDefault("1s")
        Duration minEvery();
    }

    /**
     * Checks what no single option's constraint can: a lock renewed less often than it expires would be lost between
     * two renewals.
     *
     * @param lock {@code fq.worker.lock.*}, must not be {@code null}
     * @throws IllegalStateException when {@code renew-interval} is not shorter than {@code duration}
     */
    static void check(Lock lock) {
        if (lock.renewInterval().compareTo(lock.duration()) >= 0) {
            throw new IllegalStateException("`fq.worker.lock.renew-interval` (" + lock.renewInterval()
                    + ") must be shorter than `fq.worker.lock.duration` (" + lock.duration() + ")");
        }
    }

    /** What a worker does with its running jobs when it stops. */
    enum ShutdownMode {
        /**
         * Cancel the running jobs (their LLM calls close) and hand them back to the queue at once, without
         * counting an attempt, so that another instance resumes them in about a second.
         */
        HAND_BACK,
        /** Let the running jobs finish for up to the drain timeout, then hand back those still running. */
        DRAIN
    }
}
