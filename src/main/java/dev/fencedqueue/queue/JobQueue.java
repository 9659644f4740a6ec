package dev.fencedqueue.queue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * The producer side of one queue: add jobs, read them, abort them. Obtain instances from {@link Queues}.
 * Every state change is one Lua script; every method is non-blocking and fails with
 * {@link RedisUnavailableException} when Redis cannot be reached.
 */
public class JobQueue {

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final ObjectMapper json;
    private final int maxStreamLength;

    JobQueue(QueueKeys keys, LuaScripts scripts, SharedConnection redis, ObjectMapper json, int maxStreamLength) {
        this.keys = keys;
        this.scripts = scripts;
        this.redis = redis;
        this.json = json;
        this.maxStreamLength = maxStreamLength;
    }

    /** @return the queue name */
    public String name() {
        return keys.queue();
    }

    /** @return the queue's key layout */
    public QueueKeys keys() {
        return keys;
    }

    /**
     * Adds a job (BullMQ's {@code Queue.add}). When {@code options.jobId()} names an existing job, or
     * {@code options.idempotencyKey()} was used within its time to live, nothing is added and the existing
     * job's id is returned.
     *
     * @param name the job name, must not be blank
     * @param data the job's data, serialized to JSON with Jackson; may be {@code null}
     * @param options the job options, must not be {@code null}
     * @return the job id and whether the job was created
     * @throws IllegalArgumentException when {@code name} is blank, {@code options} is {@code null} or
     *         {@code data} cannot be serialized
     */
    public Uni<AddResult> add(String name, Object data, JobOptions options) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("`name` must not be blank");
        }
        if (options == null) {
            throw new IllegalArgumentException("`options` must not be null");
        }
        List<String> args = List.of(keys.prefix(), options.jobId() == null ? "" : options.jobId(), name,
                toJson(data), toJson(describe(options)), Integer.toString(options.attempts()),
                Long.toString(options.delay().toMillis()), Integer.toString(options.priority()),
                options.lifo() ? "1" : "0", options.eventStream() ? "1" : "0",
                options.idempotencyKey() == null ? "" : options.idempotencyKey(),
                Long.toString(options.idempotencyTtl().toMillis()));
        return scripts.run(LuaScript.ADD_JOB,
                List.of(keys.waitList(), keys.delayed(), keys.prioritized(), keys.marker(), keys.meta(), keys.idCounter()),
                args)
                .map(reply -> new AddResult(reply.get(0).toString(), reply.get(1).toInteger() == 1));
    }

    /**
     * Reads a job.
     *
     * @param jobId the job id, must not be {@code null}
     * @return the job, or {@code null} when the queue has no such job
     */
    public Uni<Job> getJob(String jobId) {
        if (!QueueKeys.isValidJobId(jobId)) {
            return Uni.createFrom().nullItem();
        }
        Uni<Response> hash = redis.send(Request.cmd(Command.HGETALL).arg(keys.job(jobId)));
        Uni<Response> token = redis.send(Request.cmd(Command.GET).arg(keys.fence(jobId)));
        return Uni.combine().all().unis(hash, token).asTuple().map(pair -> {
            Map<String, String> fields = Replies.toStringMap(pair.getItem1());
            if (fields.isEmpty()) {
                return null;
            }
            long fencingToken = pair.getItem2() == null ? 0 : pair.getItem2().toLong();
            return Job.fromHash(keys.queue(), jobId, fields, fencingToken);
        });
    }

    /**
     * Reads a job that must exist.
     *
     * @param jobId the job id
     * @return the job; fails with {@link JobNotFoundException} when there is none
     */
    public Uni<Job> requireJob(String jobId) {
        return getJob(jobId).onItem().ifNull().failWith(() -> new JobNotFoundException(keys.queue(), jobId));
    }

    /**
     * Aborts a job: an intended stop that is never retried. A job that has not started (or waits for its
     * next attempt) leaves the queue; a running job's worker is told to stop and closes its LLM call.
     * Either way the job ends {@code aborted} and its event stream ends with one {@code aborted} event.
     *
     * @param jobId the job id, must not be {@code null}
     * @param reason why, shown to readers, must not be {@code null}
     * @return the state the job was in; fails with {@link JobNotFoundException} when there is no such
     *         job and with {@link JobFinishedException} when it already ended
     */
    public Uni<AbortResult> abort(String jobId, String reason) {
        if (!QueueKeys.isValidJobId(jobId)) {
            return Uni.createFrom().failure(new JobNotFoundException(keys.queue(), jobId));
        }
        return scripts.run(LuaScript.ABORT_JOB,
                List.of(keys.waitList(), keys.active(), keys.delayed(), keys.prioritized(), keys.failed(),
                        keys.job(jobId), keys.lock(jobId), keys.fence(jobId), keys.events(jobId)),
                List.of(jobId, reason, Integer.toString(maxStreamLength), keys.revokedChannel()))
                .map(reply -> {
                    int code = reply.get(0).toInteger();
                    String state = reply.get(1).toString();
                    return switch (code) {
                        case 1, 2 -> new AbortResult(jobId, JobState.of(state));
                        case ScriptErrors.NO_JOB -> throw new JobNotFoundException(keys.queue(), jobId);
                        case ScriptErrors.FINISHED -> throw new JobFinishedException(keys.queue(), jobId, JobState.of(state));
                        default -> throw ScriptErrors.toException(LuaScript.ABORT_JOB, keys.queue(), jobId, code, -1);
                    };
                });
    }

    private Map<String, Object> describe(JobOptions options) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("attempts", options.attempts());
        described.put("backoff", Map.of("type", options.backoff().type().name().toLowerCase(java.util.Locale.ROOT),
                "delay", options.backoff().delay().toMillis(), "jitter", options.backoff().jitter()));
        described.put("delay", options.delay().toMillis());
        described.put("priority", options.priority());
        described.put("lifo", options.lifo());
        return described;
    }

    private String toJson(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("`data` cannot be serialized to JSON: " + e.getOriginalMessage(), e);
        }
    }
}
