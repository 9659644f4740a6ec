package dev.fencedqueue.scheduler;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;
import java.util.OptionalLong;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

import dev.fencedqueue.Failures;

/**
 * When a {@link JobScheduler} ticks: cron patterns through cron-utils (5 fields: Unix, {@link CronType#UNIX}; 6 fields:
 * seconds first, {@link CronType#SPRING}), read in the scheduler's time zone (so a daily tick stays at its wall-clock
 * time across daylight-saving changes; a time the change skips does not tick that day, and a time it repeats ticks
 * once, at its first occurrence: cron-utils' reading, {@code SchedulerTicksTest}),
 * and fixed intervals counted from the scheduler's anchor. {@code startDate} and {@code endDate} bound both.
 */
public final class SchedulerTicks {

    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final CronParser WITH_SECONDS = new CronParser(
            CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING));

    private SchedulerTicks() {
    }

    /**
     * @param pattern a cron expression
     * @return it parsed and checked
     * @throws IllegalArgumentException when it has not 5 or 6 fields or is not valid
     */
    public static Cron parse(String pattern) {
        if (pattern == null || pattern.isBlank()) {
            throw new IllegalArgumentException("must be a cron expression of 5 or 6 fields");
        }
        int fields = pattern.trim().split("\\s+").length;
        if (fields != 5 && fields != 6) {
            throw new IllegalArgumentException("must have 5 fields (minute hour day-of-month month day-of-week) or 6 "
                    + "(seconds first), had " + fields + ": " + pattern);
        }
        try {
            return (fields == 5 ? UNIX : WITH_SECONDS).parse(pattern.trim()).validate();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("is not a valid cron expression (" + pattern + "): " + Failures.describe(e), e);
        }
    }

    /**
     * @param pattern a valid cron expression ({@link #parse})
     * @return whether it matches any date at all: {@code 0 0 31 2 *} (February 31st) and {@code 0 0 31 4 *} never do
     *         (a pattern has no year, so one that matches once matches again)
     */
    public static boolean everMatches(String pattern) {
        return ExecutionTime.forCron(parse(pattern)).nextExecution(Instant.EPOCH.atZone(ZoneOffset.UTC))
                .isPresent();
    }

    /**
     * @param scheduler the scheduler
     * @param afterMs a time, ms since the epoch
     * @return its first tick strictly after {@code afterMs} (and not before its {@code startDate}), ms since the epoch;
     *         empty when it has none (past its {@code endDate}, or a pattern that never matches again)
     */
    public static OptionalLong next(JobScheduler scheduler, long afterMs) {
        long after = afterMs;
        if (scheduler.startDate() != null) {
            after = Math.max(after, scheduler.startDate().toInstant().toEpochMilli() - 1);
        }
        long tick;
        if (scheduler.every() != null) {
            long every = scheduler.every();
            long anchor = scheduler.anchor();
            tick = after < anchor ? anchor : anchor + ((after - anchor) / every + 1) * every;
        } else {
            ExecutionTime time = ExecutionTime.forCron(parse(scheduler.pattern()));
            Optional<ZonedDateTime> next = time.nextExecution(Instant.ofEpochMilli(after).atZone(scheduler.tz()));
            if (next.isEmpty()) {
                return OptionalLong.empty();
            }
            tick = next.get().toInstant().toEpochMilli();
        }
        if (scheduler.endDate() != null && tick > scheduler.endDate().toInstant().toEpochMilli()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(tick);
    }
}
