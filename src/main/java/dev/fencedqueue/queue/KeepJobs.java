package dev.fencedqueue.queue;

import java.time.Duration;

/**
 * How many finished jobs to keep, BullMQ's {@code removeOnComplete} / {@code removeOnFail}: at most
 * {@code count} of the newest, none older than {@code age}; either limit removes. Removal takes all of a
 * job's keys, its event stream included.
 *
 * While the archive is active the limits apply to the archive's copy ({@code fq.archive.keep-for}) instead; a job that
 * keeps none is still removed as it finishes.
 *
 * @param count jobs to keep, -1 for no limit; 0 removes each job as soon as it finishes
 * @param age longest a finished job is kept, or {@code null} for no limit
 */
public record KeepJobs(int count, Duration age) {

    /** Keep every finished job (the default). */
    public static final KeepJobs ALL = new KeepJobs(-1, null);

    /** Remove each job as soon as it finishes ({@code removeOnComplete: true}). */
    public static final KeepJobs NONE = new KeepJobs(0, null);

    public KeepJobs {
        if (count < -1) {
            throw new IllegalArgumentException("`count` must be -1 (no limit) or more, was " + count);
        }
        if (age != null && age.isNegative()) {
            throw new IllegalArgumentException("`age` must not be negative");
        }
    }

    /** @return keep the newest {@code count} jobs */
    public static KeepJobs count(int count) {
        return new KeepJobs(count, null);
    }

    /** @return keep jobs for {@code age} after they finished */
    public static KeepJobs age(Duration age) {
        return new KeepJobs(-1, age);
    }

    /**
     * @param archived whether finished jobs move to the archive ({@link JobArchive#isActive()}): Redis then keeps
     *        every job until it moved (the archiver removes it, a grace period after it finished), all but those that
     *        keep none ({@code count} 0, removed as they finish and never archived)
     * @return the form the scripts read, {@code <count>,<age ms>}, or {@code ""} for {@link #ALL}
     */
    String encode(boolean archived) {
        if ((count < 0 && age == null) || (archived && count != 0)) {
            return "";
        }
        return count + "," + (age == null ? -1 : age.toMillis());
    }
}
