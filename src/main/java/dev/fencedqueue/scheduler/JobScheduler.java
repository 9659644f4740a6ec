package dev.fencedqueue.scheduler;

import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencedqueue.queue.JobOptions;

/**
 * A job scheduler (BullMQ's {@code upsertJobScheduler}): produces one job from its template at each tick, fleet-wide,
 * with the id {@code <id>:<tick>} ({@code tick} in ms since the epoch). Exactly one of {@code pattern} and
 * {@code every} is set.
 *
 * @param id the scheduler's id: 1 to 128 of {@code A-Z a-z 0-9 . _ ~ -}
 * @param pattern a cron expression of 5 fields (Unix: minute hour day-of-month month day-of-week) or 6 (seconds
 *        first), read by cron-utils; {@code null} with {@code every}
 * @param tz the time zone the pattern is read in (an IANA id, as given), UTC by default
 * @param every the fixed interval between ticks, ms (at least 1); {@code null} with {@code pattern}
 * @param startDate no tick before it, with the offset it was given in; {@code null} for none (an {@code every}
 *        scheduler then counts from its creation)
 * @param endDate no tick after it, with the offset it was given in; {@code null} for none
 * @param limit most ticks that produce a job; {@code null} for no limit
 * @param missed what a tick missed while no instance ran does (see {@link Missed})
 * @param overlap for a template with a single-flight key: what a tick does while the previous job with that key runs
 * @param anchor when an {@code every} scheduler counts from: its {@code startDate}, else when it was created (ms)
 * @param template the job each tick produces
 */
public record JobScheduler(String id, String pattern, ZoneId tz, Long every, OffsetDateTime startDate,
        OffsetDateTime endDate, Integer limit, Missed missed, Overlap overlap, long anchor, Template template) {

    /** @return this scheduler counting its interval from {@code value} (ms since the epoch) */
    public JobScheduler withAnchor(long value) {
        return new JobScheduler(id, pattern, tz, every, startDate, endDate, limit, missed, overlap, value, template);
    }

    /**
     * The job a scheduler produces at each tick.
     *
     * @param queue the queue it runs in (the scheduler lives there too)
     * @param name its name
     * @param data its data, {@code null} for JSON {@code null}
     * @param options its options (its {@code jobId} is the tick's)
     */
    public record Template(String queue, String name, JsonNode data, JobOptions options) {
    }

    /** What a tick does that no instance produced in time (all were down, Redis restarted). */
    public enum Missed {
        /** The missed ticks produce one job, at once, then the scheduler goes on from the next tick. */
        RUN_ONCE,
        /** The missed ticks produce nothing; the scheduler goes on from the next tick. The default. */
        SKIP;

        /** @return {@code run-once} or {@code skip} */
        public String value() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /**
         * @param value {@code run-once} or {@code skip}
         * @return the policy
         * @throws IllegalArgumentException for any other value
         */
        public static Missed of(String value) {
            for (Missed missed : values()) {
                if (missed.value().equals(value)) {
                    return missed;
                }
            }
            throw new IllegalArgumentException("must be `run-once` or `skip`, was " + value);
        }
    }

    /** What a tick does while the previous job of the template's single-flight key still runs. */
    public enum Overlap {
        /** The tick produces nothing. */
        SKIP,
        /**
         * The tick produces nothing and is recorded as refused, with the reason (the running job that holds the key),
         * as a second fan-out of a channel is refused; the default.
         */
        REFUSE;

        /** @return {@code skip} or {@code refuse} */
        public String value() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * @param value {@code skip} or {@code refuse}
         * @return the policy
         * @throws IllegalArgumentException for any other value
         */
        public static Overlap of(String value) {
            try {
                return valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new IllegalArgumentException("must be `skip` or `refuse`, was " + value, e);
            }
        }
    }
}
