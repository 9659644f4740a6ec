package dev.fencedqueue.scheduler;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the operator API shows of a job scheduler.
 *
 * @param id its id
 * @param queue the queue it produces jobs in
 * @param pattern its cron pattern, or absent
 * @param every its interval, ms, or absent
 * @param tz the time zone of its pattern, as given ({@code Europe/Berlin}; {@code UTC} when none was), or absent
 * @param startDate no tick before it (ISO-8601 with the offset it was given in), or absent
 * @param endDate no tick after it, as {@code startDate}, or absent
 * @param limit most ticks that produce a job, or absent
 * @param missed {@code run-once} or {@code skip}
 * @param overlap {@code skip} or {@code refuse}
 * @param next its next tick, ms since the epoch, or absent (paused, ended)
 * @param nextAt the same tick as ISO-8601 in the scheduler's time zone ({@code 2026-12-07T07:00:00+01:00}; UTC for an
 *        {@code every} scheduler), or absent
 * @param paused whether it is paused
 * @param ticks its ticks that produced a job so far (what {@code limit} counts)
 * @param jobs the jobs it produced so far: its ticks' and those an operator ran now
 * @param lastJobId the last job it produced, or absent
 * @param lastJobState that job's state, or absent (none, or removed)
 * @param skipped the last tick it skipped (ms), or absent
 * @param skippedBecause why: {@code missed}, {@code overlap} or {@code limit}, or absent
 * @param refused the last tick it refused ({@code overlap: refuse}: the template's single-flight key was held), ms, or
 *        absent
 * @param refusedReason why, naming the running job that held the key, or absent
 * @param template the job it produces: {@code {"queue", "name", "data", "options"}}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobSchedulerView(String id, String queue, String pattern, Long every, String tz, String startDate,
        String endDate, Integer limit, String missed, String overlap, Long next, String nextAt, boolean paused, long ticks,
        long jobs,
        String lastJobId, String lastJobState, Long skipped, String skippedBecause, Long refused,
        String refusedReason, JsonNode template) {

    /** The field of a scheduler's state hash that counts the jobs an operator ran now ({@code JobSchedulers.runNow}). */
    static final String RUN_NOW_JOBS = "runNowJobs";

    /**
     * @param id the scheduler's id
     * @param queue its queue
     * @param stored its stored form ({@link JobSchedulerJson#write})
     * @param next its next tick, ms since the epoch, or {@code null} for none
     * @param state its state hash ({@code ticks}, {@code runNowJobs}, {@code lastJobId}, {@code paused},
     *        {@code skipped}, {@code skippedBecause}, {@code refused}, {@code refusedReason}), empty for none
     * @param lastJobState the state of its last job, or {@code null} (none, or removed)
     * @return the view
     */
    static JobSchedulerView of(String id, String queue, JsonNode stored, Long next, Map<String, String> state,
            String lastJobState) {
        String tz = "Z".equals(text(stored, "tz")) ? "UTC" : text(stored, "tz"); // "Z": written by older versions
        long ticks = Long.parseLong(state.getOrDefault("ticks", "0"));
        long jobs = ticks + Long.parseLong(state.getOrDefault(RUN_NOW_JOBS, "0"));
        return new JobSchedulerView(id, queue, text(stored, "pattern"),
                stored.has("every") ? stored.get("every").asLong() : null, tz, text(stored, "startDate"),
                text(stored, "endDate"), stored.has("limit") ? stored.get("limit").asInt() : null,
                text(stored, "missed"), text(stored, "overlap"), next, nextAt(next, tz),
                "1".equals(state.get("paused")), ticks, jobs, state.get("lastJobId"), lastJobState,
                state.containsKey("skipped") ? Long.valueOf(state.get("skipped")) : null, state.get("skippedBecause"),
                state.containsKey("refused") ? Long.valueOf(state.get("refused")) : null, state.get("refusedReason"),
                stored.get("template"));
    }

    private static String text(JsonNode node, String field) {
        return node.has(field) ? node.get(field).asText() : null;
    }

    /**
     * @param next a tick, ms since the epoch, or {@code null}
     * @param tz the scheduler's time zone (an IANA id), {@code null} for UTC
     * @return the tick as ISO-8601 in that zone ({@code 2026-12-07T07:00:00+01:00}), or {@code null} for none
     */
    static String nextAt(Long next, String tz) {
        if (next == null) {
            return null;
        }
        ZoneId zone = tz == null ? ZoneOffset.UTC : ZoneId.of(tz);
        return JobSchedulerJson.text(Instant.ofEpochMilli(next).atZone(zone).toOffsetDateTime());
    }
}
