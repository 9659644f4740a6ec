package dev.fencedqueue.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import dev.fencedqueue.queue.JobOptions;
import org.junit.jupiter.api.Test;

/** When schedulers tick: cron patterns in a time zone (across daylight-saving changes), intervals, bounds. */
class SchedulerTicksTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    @Test
    void aDailyPatternKeepsItsWallClockTimeAcrossBothDaylightSavingChanges() {
        JobScheduler daily = cron("0 9 * * *", BERLIN);

        List<Instant> spring = ticks(daily, Instant.parse("2026-03-27T12:00:00Z"), 3);
        List<Instant> autumn = ticks(daily, Instant.parse("2026-10-23T12:00:00Z"), 3);

        assertThat(spring).containsExactly(Instant.parse("2026-03-28T08:00:00Z"), Instant.parse("2026-03-29T07:00:00Z"),
                Instant.parse("2026-03-30T07:00:00Z"));
        assertThat(autumn).containsExactly(Instant.parse("2026-10-24T07:00:00Z"), Instant.parse("2026-10-25T08:00:00Z"),
                Instant.parse("2026-10-26T08:00:00Z"));
    }

    @Test
    void aTimeTheClockSkipsDoesNotTickAndATimeItRepeatsTicksOnce() {
        JobScheduler halfPastTwo = cron("30 2 * * *", BERLIN);

        List<Instant> spring = ticks(halfPastTwo, Instant.parse("2026-03-28T12:00:00Z"), 2);
        List<Instant> autumn = ticks(halfPastTwo, Instant.parse("2026-10-24T12:00:00Z"), 2);

        // 29 March: 02:00 jumps to 03:00, there is no 02:30 that day and no tick; 25 October: 03:00 goes back to 02:00,
        // 02:30 comes twice and ticks once, at the first (summer time, +02:00).
        assertThat(spring).containsExactly(Instant.parse("2026-03-30T00:30:00Z"), Instant.parse("2026-03-31T00:30:00Z"));
        assertThat(autumn).containsExactly(Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"));
    }

    @Test
    void sixFieldsCountSecondsAndFiveFieldsMinutes() {
        assertThat(ticks(cron("*/20 * * * * *", ZoneOffset.UTC), Instant.parse("2026-11-25T10:00:05.500Z"), 3))
                .containsExactly(Instant.parse("2026-11-25T10:00:20Z"), Instant.parse("2026-11-25T10:00:40Z"),
                        Instant.parse("2026-11-25T10:01:00Z"));
        assertThat(ticks(cron("*/15 * * * *", ZoneOffset.UTC), Instant.parse("2026-11-25T10:00:00Z"), 2))
                .as("strictly after").containsExactly(Instant.parse("2026-11-25T10:15:00Z"),
                        Instant.parse("2026-11-25T10:30:00Z"));
    }

    @Test
    void knowsAPatternThatNeverMatchesADate() {
        assertThat(SchedulerTicks.everMatches("0 0 31 2 *")).as("February 31st").isFalse();
        assertThat(SchedulerTicks.everMatches("0 0 31 4 *")).as("April 31st").isFalse();
        assertThat(SchedulerTicks.everMatches("0 0 29 2 *")).as("February 29th, in leap years").isTrue();
        assertThat(SchedulerTicks.everMatches("*/5 * * * * *")).isTrue();
    }

    @Test
    void anIntervalCountsFromItsAnchorWithinItsStartAndEndDates() {
        long anchor = Instant.parse("2026-11-25T10:00:00Z").toEpochMilli();
        JobScheduler every = new JobScheduler("s", null, ZoneOffset.UTC, 60_000L, null,
                java.time.OffsetDateTime.parse("2026-11-25T10:03:00Z"), null, JobScheduler.Missed.SKIP, JobScheduler.Overlap.REFUSE,
                anchor, template());

        assertThat(ticks(every, Instant.parse("2026-11-25T09:00:00Z"), 5)).containsExactly(
                Instant.parse("2026-11-25T10:00:00Z"), Instant.parse("2026-11-25T10:01:00Z"),
                Instant.parse("2026-11-25T10:02:00Z"), Instant.parse("2026-11-25T10:03:00Z"));
        assertThat(SchedulerTicks.next(every, Instant.parse("2026-11-25T10:01:30Z").toEpochMilli()))
                .hasValue(Instant.parse("2026-11-25T10:02:00Z").toEpochMilli());
        JobScheduler starting = new JobScheduler("s", "0 * * * *", ZoneOffset.UTC, null,
                java.time.OffsetDateTime.parse("2026-12-01T00:00:00Z"), null, null, JobScheduler.Missed.SKIP, JobScheduler.Overlap.REFUSE,
                0, template());
        assertThat(SchedulerTicks.next(starting, Instant.parse("2026-11-25T10:00:00Z").toEpochMilli()))
                .as("its start date is its first tick").hasValue(Instant.parse("2026-12-01T00:00:00Z").toEpochMilli());
    }

    @Test
    void refusesPatternsThatAreNotFiveOrSixValidFields() {
        assertThatThrownBy(() -> SchedulerTicks.parse("* * * *")).hasMessageContaining("5 fields");
        assertThatThrownBy(() -> SchedulerTicks.parse("61 * * * *")).hasMessageContaining("not a valid cron");
        assertThatThrownBy(() -> SchedulerTicks.parse("* * * * * * *")).hasMessageContaining("had 7");
    }

    private static List<Instant> ticks(JobScheduler scheduler, Instant from, int count) {
        List<Instant> ticks = new ArrayList<>();
        long after = from.toEpochMilli();
        for (int i = 0; i < count; i++) {
            OptionalLong next = SchedulerTicks.next(scheduler, after);
            if (next.isEmpty()) {
                break;
            }
            ticks.add(Instant.ofEpochMilli(next.getAsLong()));
            after = next.getAsLong();
        }
        return ticks;
    }

    private static JobScheduler cron(String pattern, ZoneId tz) {
        return new JobScheduler("s", pattern, tz, null, null, null, null, JobScheduler.Missed.SKIP,
                JobScheduler.Overlap.REFUSE, 0, template());
    }

    private static JobScheduler.Template template() {
        return new JobScheduler.Template("q", "job", null, JobOptions.defaults());
    }
}
