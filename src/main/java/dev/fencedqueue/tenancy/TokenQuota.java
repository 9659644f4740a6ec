package dev.fencedqueue.tenancy;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The LLM tokens (prompt and completion, of every attempt, a cut-off one's included) a tenant's jobs may spend in a
 * calendar period, UTC. Past it, the tenant's new jobs are refused ({@code 429}) until the period ends; its running jobs
 * finish.
 *
 * @param tokens the tokens a period allows, at least 1
 * @param period the period, {@link Period#DAY} or {@link Period#MONTH}
 */
public record TokenQuota(long tokens, Period period) {

    /** A calendar period, UTC. */
    public enum Period {
        DAY, MONTH;

        /** @return its name in the API, {@code day} or {@code month} */
        public String value() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * @param value {@code day} or {@code month}
         * @return the period
         * @throws IllegalArgumentException for anything else
         */
        public static Period of(String value) {
            for (Period period : values()) {
                if (period.value().equals(value)) {
                    return period;
                }
            }
            throw new IllegalArgumentException("`tokenQuota.period` must be `day` or `month`, was " + value);
        }

        /**
         * @param now an instant
         * @return the id of the period holding it ({@code day:2026-11-27}, {@code month:2026-11}): part of the key of
         *         its counters
         */
        public String id(Instant now) {
            LocalDate date = LocalDate.ofInstant(now, ZoneOffset.UTC);
            return this == DAY ? "day:" + date : "month:" + DateTimeFormatter.ofPattern("yyyy-MM").format(date);
        }

        /**
         * @param now an instant
         * @return when the period holding it ends (midnight UTC of the next day, or of the next month's first day)
         */
        public Instant end(Instant now) {
            LocalDate date = LocalDate.ofInstant(now, ZoneOffset.UTC);
            LocalDate next = this == DAY ? date.plusDays(1) : date.withDayOfMonth(1).plusMonths(1);
            return next.atStartOfDay(ZoneOffset.UTC).toInstant();
        }
    }

    public TokenQuota {
        if (tokens < 1) {
            throw new IllegalArgumentException("`tokenQuota.tokens` must be at least 1, was " + tokens);
        }
        if (period == null) {
            throw new IllegalArgumentException("`tokenQuota.period` must be `day` or `month`");
        }
    }
}
