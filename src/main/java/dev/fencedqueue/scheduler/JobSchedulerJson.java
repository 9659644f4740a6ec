package dev.fencedqueue.scheduler;

import java.io.IOException;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.Set;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobOptionsJson;
import dev.fencedqueue.queue.QueueKeys;

/**
 * A {@link JobScheduler} as JSON: the body of {@code PUT /admin/schedulers/{id}} and what the queue stores. Shape:
 * {@code {"pattern" | "every" (ms), "tz", "startDate", "endDate" (ISO-8601 instants), "limit", "missed": "run-once" |
 * "skip", "overlap": "skip" | "refuse", "template": {"queue", "name", "data", "options"}}}; the stored form adds
 * {@code "id"} and {@code "anchor"} (ms).
 */
public final class JobSchedulerJson {

    private static final Set<String> FIELDS = Set.of("pattern", "every", "tz", "startDate", "endDate", "limit", "missed",
            "overlap", "template", "id", "anchor");
    private static final Set<String> TEMPLATE = Set.of("queue", "name", "data", "options");
    /** The time zone of a pattern given none, shown as {@code UTC} (not {@code Z}). */
    private static final ZoneId UTC = ZoneId.of("UTC");

    private JobSchedulerJson() {
    }

    /**
     * @param id the scheduler's id
     * @param body the request body
     * @param nowMs the Redis clock, ms: the anchor of an {@code every} scheduler without {@code startDate}
     * @param keyPrefix the global key prefix, to check the template's queue
     * @return the scheduler, its template's options over {@link JobOptions#defaults()}
     * @throws IllegalArgumentException naming the field at fault ({@code pattern}, {@code tz}, {@code every},
     *         {@code template.options.attempts}, ...)
     */
    public static JobScheduler read(String id, JsonNode body, long nowMs, String keyPrefix) {
        return read(id, body, nowMs, keyPrefix, queue -> JobOptions.defaults());
    }

    /**
     * @param id the scheduler's id
     * @param body the request body
     * @param nowMs the Redis clock, ms: the anchor of an {@code every} scheduler without {@code startDate}
     * @param keyPrefix the global key prefix, to check the template's queue
     * @param defaults a queue's options for a job that names none (a research job gets {@code POST /research/start}'s):
     *        the template's options replace them where it names them, must not be {@code null}
     * @return the scheduler
     * @throws IllegalArgumentException naming the field at fault ({@code pattern}, {@code tz}, {@code every},
     *         {@code template.options.attempts}, ...)
     */
    public static JobScheduler read(String id, JsonNode body, long nowMs, String keyPrefix,
            Function<String, JobOptions> defaults) {
        if (!QueueKeys.isValidJobId(id)) {
            throw new IllegalArgumentException("`id` must be 1 to 128 characters of A-Z a-z 0-9 . _ ~ -, was " + id);
        }
        if (body == null || !body.isObject()) {
            throw new IllegalArgumentException("`body` must be an object {pattern | every, template, ...}");
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!FIELDS.contains(name) || name.equals("id") || name.equals("anchor")) {
                throw new IllegalArgumentException("`" + name + "` is not a field of a job scheduler");
            }
        }
        String pattern = text(body, "pattern");
        JsonNode everyNode = body.get("every");
        if ((pattern == null) == (everyNode == null || everyNode.isNull())) {
            throw new IllegalArgumentException("`pattern` or `every`: exactly one of them must be given");
        }
        Long every = null;
        if (pattern != null) {
            try {
                SchedulerTicks.parse(pattern);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("`pattern` " + e.getMessage(), e);
            }
        } else {
            if (!everyNode.isIntegralNumber() || everyNode.asLong() < 1) {
                throw new IllegalArgumentException("`every` must be a whole number of ms, at least 1");
            }
            every = everyNode.asLong();
        }
        ZoneId tz = UTC;
        String zone = text(body, "tz");
        if (zone != null) {
            if (every != null) {
                throw new IllegalArgumentException("`tz` applies to a `pattern` only");
            }
            try {
                tz = ZoneId.of(zone);
            } catch (DateTimeException e) {
                throw new IllegalArgumentException("`tz` must be an IANA time zone (Europe/Berlin), was " + zone, e);
            }
        }
        OffsetDateTime start = instant(body, "startDate");
        OffsetDateTime end = instant(body, "endDate");
        if (start != null && end != null && end.toInstant().isBefore(start.toInstant())) {
            throw new IllegalArgumentException("`endDate` must not be before `startDate`");
        }
        Integer limit = null;
        JsonNode limitNode = body.get("limit");
        if (limitNode != null && !limitNode.isNull()) {
            if (!limitNode.isIntegralNumber() || limitNode.asLong() < 1 || limitNode.asLong() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("`limit` must be a whole number of ticks, at least 1");
            }
            limit = limitNode.asInt();
        }
        JobScheduler.Missed missed = JobScheduler.Missed.SKIP;
        if (text(body, "missed") != null) {
            try {
                missed = JobScheduler.Missed.of(text(body, "missed"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("`missed` " + e.getMessage(), e);
            }
        }
        JobScheduler.Overlap overlap = JobScheduler.Overlap.REFUSE;
        if (text(body, "overlap") != null) {
            try {
                overlap = JobScheduler.Overlap.of(text(body, "overlap"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("`overlap` " + e.getMessage(), e);
            }
        }
        long anchor = start != null ? start.toInstant().toEpochMilli() : nowMs;
        return new JobScheduler(id, pattern, tz, every, start, end, limit, missed, overlap, anchor,
                template(body.get("template"), keyPrefix, defaults));
    }

    /**
     * The checks a new or changed scheduler gets beyond {@link #read}'s (a stored one was checked when it was written,
     * and is read as it is): its pattern matches some date.
     *
     * @param scheduler a scheduler {@link #read} from a request
     * @throws IllegalArgumentException naming the field: {@code pattern} for one that never matches ({@code 0 0 31 2 *})
     */
    static void checkNew(JobScheduler scheduler) {
        if (scheduler.pattern() != null && !SchedulerTicks.everMatches(scheduler.pattern())) {
            throw new IllegalArgumentException("`pattern` never matches a date, so the scheduler would never tick: "
                    + scheduler.pattern());
        }
    }

    /**
     * @param stored what {@link #write} wrote
     * @return the scheduler
     */
    static JobScheduler stored(JsonNode stored, String keyPrefix) {
        ObjectNode body = ((ObjectNode) stored).deepCopy();
        String id = body.remove("id").asText();
        long anchor = body.remove("anchor").asLong();
        JobScheduler read = read(id, body, anchor, keyPrefix);
        return new JobScheduler(read.id(), read.pattern(), read.tz(), read.every(), read.startDate(), read.endDate(),
                read.limit(), read.missed(), read.overlap(), anchor, read.template());
    }

    /**
     * @param scheduler a scheduler
     * @return its stored form (also the base of its view)
     */
    public static ObjectNode write(JobScheduler scheduler) {
        ObjectNode node = JsonNodeFactory.instance.objectNode().put("id", scheduler.id());
        if (scheduler.pattern() != null) {
            node.put("pattern", scheduler.pattern()).put("tz", scheduler.tz().getId());
        } else {
            node.put("every", scheduler.every());
        }
        if (scheduler.startDate() != null) {
            node.put("startDate", text(scheduler.startDate()));
        }
        if (scheduler.endDate() != null) {
            node.put("endDate", text(scheduler.endDate()));
        }
        if (scheduler.limit() != null) {
            node.put("limit", scheduler.limit());
        }
        node.put("missed", scheduler.missed().value()).put("overlap", scheduler.overlap().value())
                .put("anchor", scheduler.anchor());
        ObjectNode template = node.putObject("template").put("queue", scheduler.template().queue())
                .put("name", scheduler.template().name());
        template.set("data", scheduler.template().data() == null ? NullNode.getInstance() : scheduler.template().data());
        template.set("options", JobOptionsJson.write(scheduler.template().options()));
        return node;
    }

    private static JobScheduler.Template template(JsonNode node, String keyPrefix,
            Function<String, JobOptions> defaults) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("`template` must be an object {queue, name, data, options}");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!TEMPLATE.contains(name)) {
                throw new IllegalArgumentException("`template." + name + "` is not a field of a job template");
            }
        }
        String queue = text(node, "queue");
        try {
            QueueKeys.of(keyPrefix, queue);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("`template.queue`: " + e.getMessage(), e);
        }
        String name = text(node, "name");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("`template.name` must not be blank");
        }
        JobOptions options = JobOptionsJson.read(node.get("options"), "template.options", defaults.apply(queue));
        if (options.jobId() != null) {
            throw new IllegalArgumentException("`template.options.jobId` is the tick's: `<schedulerId>:<tick>`");
        }
        return new JobScheduler.Template(queue, name, node.get("data"), options);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException("`" + field + "` must be a string");
        }
        return value.asText();
    }

    private static OffsetDateTime instant(JsonNode node, String field) {
        String value = text(node, field);
        if (value == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(value);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("`" + field + "` must be an ISO-8601 instant with its offset "
                    + "(2026-12-01T00:00:00Z, 2026-12-01T09:00:00+01:00), was " + value, e);
        }
    }

    /**
     * @param json Jackson
     * @param text JSON text a script stored
     * @return its tree
     * @throws IllegalStateException when it is not JSON (Redis holds something this code did not write)
     */
    static JsonNode parse(ObjectMapper json, String text) {
        try {
            return json.readTree(text);
        } catch (IOException e) {
            throw new IllegalStateException("not JSON: " + text, e);
        }
    }

    /** @return a date-time as ISO-8601 with its offset, seconds always written ({@code 2026-12-01T09:00:00+01:00}) */
    static String text(OffsetDateTime value) {
        return value.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }
}
