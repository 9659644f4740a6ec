package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.Failures;

/**
 * Job options as JSON, in BullMQ's names, for what travels as JSON: a flow's pending children, a scheduler's job
 * template, an HTTP request. Shape: {@code {"jobId", "attempts", "backoff": {"type": "fixed"|"exponential", "delay"
 * (ms), "jitter" (0..1)}, "delay" (ms), "priority", "lifo", "eventStream", "timeout" (ms), "removeOnComplete" and
 * "removeOnFail": true (keep none) | false (keep all) | {"count", "age" (ms)}, "tenant" (see TenantIds)}}, every
 * field optional.
 */
public final class JobOptionsJson {

    private static final Set<String> FIELDS = Set.of("jobId", "attempts", "backoff", "delay", "priority", "lifo",
            "eventStream", "timeout", "removeOnComplete", "removeOnFail", "tenant");

    private JobOptionsJson() {
    }

    /**
     * @param options options, not {@code null}; idempotency and deduplication are not written
     * @return their JSON
     */
    public static ObjectNode write(JobOptions options) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        if (options.jobId() != null) {
            node.put("jobId", options.jobId());
        }
        node.put("attempts", options.attempts());
        node.putObject("backoff").put("type", options.backoff().type().name().toLowerCase(Locale.ROOT))
                .put("delay", options.backoff().delay().toMillis()).put("jitter", options.backoff().jitter());
        node.put("delay", options.delay().toMillis()).put("priority", options.priority()).put("lifo", options.lifo())
                .put("eventStream", options.eventStream());
        if (options.timeout() != null) {
            node.put("timeout", options.timeout().toMillis());
        }
        writeKeep(node, "removeOnComplete", options.removeOnComplete());
        writeKeep(node, "removeOnFail", options.removeOnFail());
        if (options.tenant() != null) {
            node.put("tenant", options.tenant());
        }
        return node;
    }

    /**
     * Reads options, starting from {@link JobOptions#defaults()}.
     *
     * @param node the JSON, {@code null} or missing for the defaults
     * @param field the name of {@code node} in its document (e.g. {@code options}), for messages
     * @return the options
     * @throws IllegalArgumentException naming the field ({@code options.attempts}) for an unknown field, a value of
     *         the wrong type or out of range
     */
    public static JobOptions read(JsonNode node, String field) {
        return read(node, field, JobOptions.defaults());
    }

    /**
     * Reads options over the defaults of the job's queue: each field the JSON names replaces the base's, every other
     * field keeps the base's value (a research job added in a flow without {@code attempts} gets the attempts of
     * {@code POST /research/start}).
     *
     * @param node the JSON, {@code null} or missing for the base
     * @param field the name of {@code node} in its document (e.g. {@code options}), for messages
     * @param base the options of a job that names none, must not be {@code null}
     * @return the options
     * @throws IllegalArgumentException naming the field ({@code options.attempts}) for an unknown field, a value of
     *         the wrong type or out of range
     */
    public static JobOptions read(JsonNode node, String field, JobOptions base) {
        JobOptions options = base;
        if (node == null || node.isMissingNode() || node.isNull()) {
            return options;
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("`" + field + "` must be an object");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new IllegalArgumentException("`" + field + "." + name + "` is not a job option (one of " + FIELDS
                        + ")");
            }
        }
        String at = field + ".";
        try {
            if (node.has("jobId")) {
                options = options.withJobId(text(node, "jobId", at));
            }
            options = options.withAttempts((int) number(node, "attempts", at, base.attempts(), 1, 1_000));
            if (node.has("backoff")) {
                options = options.withBackoff(backoff(node.get("backoff"), at + "backoff"));
            }
            options = options.withDelay(Duration.ofMillis(number(node, "delay", at, base.delay().toMillis(), 0,
                            Long.MAX_VALUE / 4)))
                    .withPriority((int) number(node, "priority", at, base.priority(), 0, JobOptions.MAX_PRIORITY))
                    .withLifo(bool(node, "lifo", at, base.lifo()))
                    .withEventStream(bool(node, "eventStream", at, base.eventStream()));
            if (node.has("timeout")) {
                options = options.withTimeout(Duration.ofMillis(number(node, "timeout", at, 0, 1, Long.MAX_VALUE / 4)));
            }
            if (node.has("tenant")) {
                String tenant = text(node, "tenant", at);
                if (!TenantIds.isValid(tenant)) {
                    throw new IllegalArgumentException("`" + at + "tenant` must be " + TenantIds.RULE);
                }
                options = options.withTenant(tenant);
            }
            if (node.has("removeOnComplete")) {
                options = options.withRemoveOnComplete(keep(node, "removeOnComplete", at));
            }
            return node.has("removeOnFail") ? options.withRemoveOnFail(keep(node, "removeOnFail", at)) : options;
        } catch (IllegalArgumentException e) {
            String message = Failures.describe(e);
            throw new IllegalArgumentException(message.startsWith("`" + at) ? message : "`" + field + "`: " + message, e);
        }
    }

    private static Backoff backoff(JsonNode node, String field) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("`" + field + "` must be an object {type, delay, jitter}");
        }
        String at = field + ".";
        String type = node.has("type") ? text(node, "type", at) : "fixed";
        Duration delay = Duration.ofMillis(number(node, "delay", at, 0, 0, Long.MAX_VALUE / 4));
        Backoff backoff = switch (type) {
            case "fixed" -> Backoff.fixed(delay);
            case "exponential" -> Backoff.exponential(delay);
            default -> throw new IllegalArgumentException("`" + at + "type` must be `fixed` or `exponential`, was "
                    + type);
        };
        JsonNode jitter = node.get("jitter");
        if (jitter != null && (!jitter.isNumber() || jitter.asDouble() < 0 || jitter.asDouble() > 1)) {
            throw new IllegalArgumentException("`" + at + "jitter` must be a number from 0 to 1");
        }
        return jitter == null ? backoff : backoff.withJitter(jitter.asDouble());
    }

    private static void writeKeep(ObjectNode node, String name, KeepJobs keep) {
        if (keep.count() < 0 && keep.age() == null) {
            return;
        }
        ObjectNode kept = node.putObject(name);
        if (keep.count() >= 0) {
            kept.put("count", keep.count());
        }
        if (keep.age() != null) {
            kept.put("age", keep.age().toMillis());
        }
    }

    private static KeepJobs keep(JsonNode node, String name, String at) {
        JsonNode value = node.get(name);
        if (value == null || value.isNull() || value.isBoolean() && !value.asBoolean()) {
            return KeepJobs.ALL;
        }
        if (value.isBoolean()) {
            return KeepJobs.NONE;
        }
        if (!value.isObject()) {
            throw new IllegalArgumentException("`" + at + name + "` must be true, false or {count, age}");
        }
        String inner = at + name + ".";
        int count = (int) number(value, "count", inner, -1, 0, Integer.MAX_VALUE);
        Duration age = value.has("age") ? Duration.ofMillis(number(value, "age", inner, 0, 0, Long.MAX_VALUE / 4))
                : null;
        return new KeepJobs(count, age);
    }

    private static String text(JsonNode node, String name, String at) {
        JsonNode value = node.get(name);
        if (!value.isTextual()) {
            throw new IllegalArgumentException("`" + at + name + "` must be a string");
        }
        return value.asText();
    }

    private static boolean bool(JsonNode node, String name, String at, boolean absent) {
        JsonNode value = node.get(name);
        if (value == null) {
            return absent;
        }
        if (!value.isBoolean()) {
            throw new IllegalArgumentException("`" + at + name + "` must be true or false");
        }
        return value.asBoolean();
    }

    private static long number(JsonNode node, String name, String at, long absent, long min, long max) {
        JsonNode value = node.get(name);
        if (value == null) {
            return absent;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.asLong() < min || value.asLong() > max) {
            throw new IllegalArgumentException("`" + at + name + "` must be a whole number from " + min + " to " + max);
        }
        return value.asLong();
    }
}
