package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * Options of a job, in BullMQ's terms. Start from {@link #defaults()} and change what you need with the
 * {@code with...} methods.
 *
 * @param jobId caller-chosen job id, or {@code null} to let the queue number the job; adding a job whose
 *        id exists returns the existing job
 * @param attempts how many times the job may run, the first run included (at least 1)
 * @param backoff wait between a failed attempt and the next one
 * @param delay how long the job waits before it becomes ready (zero = at once)
 * @param priority 0 for none, otherwise 1 (highest) to 2,097,152; ready jobs without priority run first
 * @param lifo whether the job goes to the front of the wait list instead of the back
 * @param eventStream whether the job keeps a per-job event stream (started, progress, terminal events)
 * @param idempotencyKey a key that, within {@code idempotencyTtl}, makes adds return the same job even
 *        after the job was removed; {@code null} for none
 * @param idempotencyTtl how long the idempotency key lives
 * @param removeOnComplete retention of the job once completed
 * @param removeOnFail retention of the job once failed or aborted
 * @param deduplication ignore adds of the same deduplication id while this job is live; {@code null} for none
 * @param timeout longest one attempt may run before it is cancelled and counted as failed; {@code null}
 *        for no limit
 * @param tenant the tenant the job belongs to ({@link TenantIds}); {@code null} for {@value TenantIds#DEFAULT}. A flow's
 *        children without one take their parent's, and a job scheduler's jobs take their template's
 */
public record JobOptions(String jobId, int attempts, Backoff backoff, Duration delay, int priority, boolean lifo,
        boolean eventStream, String idempotencyKey, Duration idempotencyTtl, KeepJobs removeOnComplete,
        KeepJobs removeOnFail, Deduplication deduplication, Duration timeout, String tenant) {

    /** Largest allowed priority (BullMQ's limit). */
    public static final int MAX_PRIORITY = 2_097_152;

    public JobOptions {
        if (jobId != null && !QueueKeys.isJobId(jobId)) {
            throw new IllegalArgumentException("`jobId` must be 1 to 128 characters of A-Z a-z 0-9 . _ ~ -, or such parts "
                    + "joined by `:` (a derived id, as a flow's child has)");
        }
        if (attempts < 1) {
            throw new IllegalArgumentException("`attempts` must be at least 1, was " + attempts);
        }
        if (backoff == null) {
            throw new IllegalArgumentException("`backoff` must not be null");
        }
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("`delay` must not be negative");
        }
        if (priority < 0 || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("`priority` must be between 0 and " + MAX_PRIORITY + ", was " + priority);
        }
        if (idempotencyKey != null && (idempotencyKey.isBlank() || idempotencyKey.length() > 255)) {
            throw new IllegalArgumentException("`idempotencyKey` must be 1 to 255 characters");
        }
        if (idempotencyTtl == null || idempotencyTtl.isNegative() || idempotencyTtl.isZero()) {
            throw new IllegalArgumentException("`idempotencyTtl` must be positive");
        }
        if (removeOnComplete == null || removeOnFail == null) {
            throw new IllegalArgumentException("`removeOnComplete` and `removeOnFail` must not be null (use KeepJobs.ALL)");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("`timeout` must be positive");
        }
        if (tenant != null && !TenantIds.isValid(tenant)) {
            throw new IllegalArgumentException("`tenant` must be " + TenantIds.RULE);
        }
    }

    /**
     * @return one attempt, no backoff, delay, priority or timeout, FIFO, with an event stream, keep all jobs, the
     *         default tenant
     */
    public static JobOptions defaults() {
        return new JobOptions(null, 1, Backoff.NONE, Duration.ZERO, 0, false, true, null, Duration.ofHours(24),
                KeepJobs.ALL, KeepJobs.ALL, null, null, null);
    }

    public JobOptions withJobId(String id) {
        return with(copy -> copy.jobId = id);
    }

    public JobOptions withAttempts(int count) {
        return with(copy -> copy.attempts = count);
    }

    public JobOptions withBackoff(Backoff value) {
        return with(copy -> copy.backoff = value);
    }

    public JobOptions withDelay(Duration value) {
        return with(copy -> copy.delay = value);
    }

    public JobOptions withPriority(int value) {
        return with(copy -> copy.priority = value);
    }

    public JobOptions withLifo(boolean value) {
        return with(copy -> copy.lifo = value);
    }

    public JobOptions withEventStream(boolean value) {
        return with(copy -> copy.eventStream = value);
    }

    public JobOptions withIdempotencyKey(String key, Duration ttl) {
        return with(copy -> {
            copy.idempotencyKey = key;
            copy.idempotencyTtl = ttl;
        });
    }

    public JobOptions withRemoveOnComplete(KeepJobs keep) {
        return with(copy -> copy.removeOnComplete = keep);
    }

    public JobOptions withRemoveOnFail(KeepJobs keep) {
        return with(copy -> copy.removeOnFail = keep);
    }

    public JobOptions withDeduplication(Deduplication value) {
        return with(copy -> copy.deduplication = value);
    }

    public JobOptions withTimeout(Duration value) {
        return with(copy -> copy.timeout = value);
    }

    /**
     * @param value the tenant the job belongs to ({@link TenantIds}), {@code null} for the default one
     * @return these options for that tenant
     * @throws IllegalArgumentException when {@code value} is not a valid tenant id
     */
    public JobOptions withTenant(String value) {
        return with(copy -> copy.tenant = value);
    }

    /**
     * The one copy behind every {@code with...} method: these options with what {@code change} sets, checked as any
     * options are.
     *
     * @throws IllegalArgumentException when the changed options break a rule of the canonical constructor
     */
    private JobOptions with(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.options();
    }

    /** A mutable copy of options, each field named as the component it stands for. */
    private static final class Copy {

        String jobId;
        int attempts;
        Backoff backoff;
        Duration delay;
        int priority;
        boolean lifo;
        boolean eventStream;
        String idempotencyKey;
        Duration idempotencyTtl;
        KeepJobs removeOnComplete;
        KeepJobs removeOnFail;
        Deduplication deduplication;
        Duration timeout;
        String tenant;

        Copy(JobOptions options) {
            jobId = options.jobId;
            attempts = options.attempts;
            backoff = options.backoff;
            delay = options.delay;
            priority = options.priority;
            lifo = options.lifo;
            eventStream = options.eventStream;
            idempotencyKey = options.idempotencyKey;
            idempotencyTtl = options.idempotencyTtl;
            removeOnComplete = options.removeOnComplete;
            removeOnFail = options.removeOnFail;
            deduplication = options.deduplication;
            timeout = options.timeout;
            tenant = options.tenant;
        }

        JobOptions options() {
            return new JobOptions(jobId, attempts, backoff, delay, priority, lifo, eventStream, idempotencyKey,
                    idempotencyTtl, removeOnComplete, removeOnFail, deduplication, timeout, tenant);
        }
    }
}
