package dev.fencedqueue.queue;

import java.util.Map;
import java.util.TreeMap;

/**
 * A snapshot of a job as stored in its Redis hash. JSON fields ({@code data}, {@code progress},
 * {@code returnValue}, {@code options}) are kept as JSON text; {@code null} means absent.
 *
 * @param queue the queue name
 * @param id the job id
 * @param name the job name
 * @param data the job's data (JSON)
 * @param options the options it was added with that no other field holds (JSON: {@code {"backoff": {"type",
 *        "delay" (ms), "jitter"}}} when it has one, else {@code {}}; its attempts, delay, priority and timeout are
 *        fields of their own)
 * @param state its state
 * @param fencingToken its current fencing token (its epoch): greater with every activation, the Redis time of the
 *        activation in ms unless that is not greater than the previous token; 0 before the first run
 * @param attempts how many attempts it may make
 * @param attemptsMade attempts that ended (failed or completed)
 * @param attemptsStarted attempts that started (activations)
 * @param stalledCounter how many times it stalled
 * @param workerId the worker that ran it last, or {@code null}
 * @param progress its last progress (JSON), or {@code null}
 * @param returnValue its result (JSON) once completed, or {@code null}
 * @param failedReason why it failed or was aborted, or {@code null}
 * @param timestamp when it was added, ms since the epoch (Redis clock)
 * @param processedOn when its latest attempt started, ms since the epoch, or {@code null}
 * @param finishedOn when it ended, ms since the epoch, or {@code null}
 * @param eventStream whether it keeps an event stream
 * @param priority its priority, 0 for none
 * @param delay the delay it was added with, ms
 * @param timeout longest one attempt may run, ms, 0 for no limit
 * @param tokens LLM tokens its attempts spent, by {@code <outcome>:<attempts|prompt|completion>} (the hash's
 *        {@code tokens:*} fields), empty when none were counted
 * @param cost what those tokens cost at the model's prices, in micro-units of the prices' currency, by {@code <outcome>}
 *        (and {@code saved}: what the tokens a takeover did not generate again would have cost; the hash's
 *        {@code cost:*} fields), empty when none was counted (no prices were set)
 * @param parentKey the job key of its parent ({@code <prefix>:{<queue>}:job:<id>}, see {@link JobKey}) when it is a
 *        flow's child, else {@code null}
 * @param schedulerId the job scheduler that produced it, else {@code null}
 * @param tick the scheduler's tick it was produced for, ms since the epoch, else {@code null}
 * @param traceParent the W3C {@code traceparent} of the span that added it (its trace), else {@code null}
 * @param tenant the tenant it belongs to ({@link TenantIds}; {@value TenantIds#DEFAULT} when its hash holds none)
 */
public record Job(String queue, String id, String name, String data, String options, JobState state,
        long fencingToken, int attempts, int attemptsMade, int attemptsStarted, int stalledCounter, String workerId,
        String progress, String returnValue, String failedReason, long timestamp, Long processedOn, Long finishedOn,
        boolean eventStream, int priority, long delay, long timeout, Map<String, Long> tokens, Map<String, Long> cost,
        String parentKey, String schedulerId, Long tick, String traceParent, String tenant) {

    private static final String TOKENS = "tokens:";
    private static final String COST = "cost:";

    /**
     * Reads a job from its hash fields.
     *
     * @param queue the queue name
     * @param id the job id
     * @param hash the fields of the job hash, must not be empty; its {@code fencingToken} is the job's current fencing
     *        token (absent before the first run: 0)
     * @return the job
     */
    public static Job fromHash(String queue, String id, Map<String, String> hash) {
        return new Job(queue, id, hash.get("name"), hash.get("data"), hash.get("opts"),
                JobState.of(hash.getOrDefault("state", "waiting")), longField(hash, "fencingToken", 0L),
                intField(hash, "attempts", 1), intField(hash, "attemptsMade", 0), intField(hash, "attemptsStarted", 0),
                intField(hash, "stalledCounter", 0), hash.get("workerId"), hash.get("progress"),
                hash.get("returnvalue"), hash.get("failedReason"), longField(hash, "timestamp", 0L),
                longField(hash, "processedOn", null), longField(hash, "finishedOn", null),
                "1".equals(hash.get("events")), intField(hash, "priority", 0), longField(hash, "delay", 0L),
                longField(hash, "timeout", 0L), counts(hash, TOKENS), counts(hash, COST), hash.get("parentKey"),
                hash.get("schedulerId"), longField(hash, "tick", null), hash.get("traceparent"),
                TenantIds.orDefault(hash.get("tenant")));
    }

    /** @return the hash's counters under {@code prefix}, by the rest of their field names */
    private static Map<String, Long> counts(Map<String, String> hash, String prefix) {
        Map<String, Long> counts = new TreeMap<>();
        hash.forEach((field, value) -> {
            if (field.startsWith(prefix)) {
                counts.put(field.substring(prefix.length()), Long.valueOf(value));
            }
        });
        return counts;
    }

    private static int intField(Map<String, String> hash, String field, int absent) {
        String value = hash.get(field);
        return value == null ? absent : Integer.parseInt(value);
    }

    private static Long longField(Map<String, String> hash, String field, Long absent) {
        String value = hash.get(field);
        return value == null ? absent : Long.valueOf(value);
    }
}
