package dev.fencedqueue.queue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.Spans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Adds jobs to any queue with {@code addJob} ({@link AddJobArgs}): builds its ARGV from a job's name, data and options
 * and runs it, waiting for the replicas the connection's durability asks for. Used by {@link JobQueue}'s adds, a
 * flow's jobs ({@code FlowProducer}), and a scheduler's jobs ({@code JobSchedulers}, {@code DueTicks}).
 */
@ApplicationScoped
public class JobAdder {

    private final LuaScripts scripts;
    private final ObjectMapper json;
    private final JobTracing tracing;
    private final JobArchive archive;
    private final int maxQueueEvents;

    /**
     * @param scripts the script registry, not {@code null}
     * @param json Jackson, which serializes a job's data, not {@code null}
     * @param tracing the spans of jobs, not {@code null} ({@link JobTracing#noop()} while tracing is off)
     * @param archive where finished jobs go once Redis no longer keeps them (whether it is active decides how a job's
     *        retention is stored), not {@code null}; {@link JobArchive#NONE} for nowhere
     * @param events the queue event stream's bound ({@code fq.events.queue-stream-max-length}), not {@code null}
     */
    public JobAdder(LuaScripts scripts, ObjectMapper json, JobTracing tracing, JobArchive archive,
            EventsConfig events) {
        this.scripts = scripts;
        this.json = json;
        this.tracing = tracing;
        this.archive = archive;
        this.maxQueueEvents = events.queueStreamMaxLength();
    }

    /**
     * @param queue the queue the job goes to, not {@code null}
     * @param name the job name, must not be blank
     * @param data the job's data, serialized to JSON with Jackson; may be {@code null}
     * @param options the job options, must not be {@code null}
     * @param parentKey a flow's child's parent's job key, {@code ""} for none
     * @param policy what the job's failure does to its parent: {@code fail} ({@link AddJobArgs#NO_PARENT_POLICY}
     *        without a parent), {@code ignore} or {@code remove}
     * @param schedulerId the scheduler that produced the job, {@code ""} for none
     * @param tick the scheduler's tick the job is for (ms since the epoch), {@code ""} for none
     * @param traceParent the W3C {@code traceparent} of the span that adds the job, {@code ""} for none
     * @return the ARGV of {@code addJob} up to the children (a mutable list, to append them to: two per child, its job
     *         key and its spec)
     * @throws IllegalArgumentException when {@code name} is blank, {@code options} is {@code null} or {@code data}
     *         cannot be serialized
     */
    public List<String> args(QueueKeys queue, String name, Object data, JobOptions options, String parentKey,
            String policy, String schedulerId, String tick, String traceParent) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("`name` must not be blank");
        }
        if (options == null) {
            throw new IllegalArgumentException("`options` must not be null");
        }
        Deduplication dedup = options.deduplication();
        boolean archived = archive.isActive();
        List<String> args = new ArrayList<>(25);
        Collections.addAll(args, queue.prefix(), options.jobId() == null ? "" : options.jobId(), name,
                toJson(data), toJson(describe(options)), Integer.toString(options.attempts()),
                Long.toString(options.delay().toMillis()), Integer.toString(options.priority()),
                options.lifo() ? "1" : "0", options.eventStream() ? "1" : "0",
                options.idempotencyKey() == null ? "" : options.idempotencyKey(),
                Long.toString(options.idempotencyTtl().toMillis()), options.removeOnComplete().encode(archived),
                options.removeOnFail().encode(archived), dedup == null ? "" : dedup.id(),
                dedup == null || dedup.ttl() == null ? "0" : Long.toString(dedup.ttl().toMillis()),
                options.timeout() == null ? "0" : Long.toString(options.timeout().toMillis()),
                Integer.toString(maxQueueEvents), parentKey, policy, schedulerId, tick, traceParent,
                storedTenant(options.tenant()));
        return args;
    }

    /**
     * Runs {@code addJob}, and waits for the replicas the connection's durability asks for.
     *
     * @param call its KEYS and ARGV ({@link #args}, with the children's appended when the job has any), not
     *        {@code null}
     * @return the job id and whether the job was created; fails with the {@link QueueException} of a refused add
     *         ({@link IdempotencyKeyReusedException}), and with {@link dev.fencedqueue.redis.RedisUnavailableException}
     *         when Redis is unreachable
     */
    public Uni<AddResult> run(AddJobArgs call) {
        return scripts.runReplicated(call).map(reply -> {
            String jobId = reply.get(0).toString();
            int code = reply.get(1).toInteger();
            if (code < 0) {
                throw ScriptErrors.toException(LuaScript.ADD_JOB, call.queue().queue(), jobId, code, -1);
            }
            return AddResult.of(jobId, code);
        });
    }

    /**
     * Runs {@code addJob} like {@link #run}, under a {@code send} span (a child of the caller's, OpenTelemetry's
     * messaging conventions) that names the added job's id, so that the job's attempts join that trace.
     *
     * @param queue the queue the job goes to, not {@code null}
     * @param args its ARGV given the span's W3C {@code traceparent} ({@link #args} with it), not {@code null}
     * @return the job id and whether the job was created; fails as {@link #run} does
     */
    public Uni<AddResult> runSent(QueueKeys queue, Function<String, List<String>> args) {
        Span send = tracing.send(queue.queue(), Context.current(), 1);
        return Spans.ending(send, run(new AddJobArgs(queue, args.apply(JobTracing.traceParent(send)))),
                (span, added) -> span.setAttribute(MessagingIncubatingAttributes.MESSAGING_MESSAGE_ID, added.jobId()));
    }

    /** @return the tenant as the job hash stores it: {@code ""} (no field) for the default one */
    private static String storedTenant(String tenant) {
        return tenant == null || TenantIds.DEFAULT.equals(tenant) ? "" : tenant;
    }

    /**
     * The job's {@code opts}: its options that the job hash holds in no field of its own (the {@code backoff}, in
     * BullMQ's names, when not the default), {@code {}} for none. Kept short on purpose: Redis stores a hash compactly
     * (a listpack) only while every value is at most {@code hash-max-listpack-value} bytes (64 by default), and a job
     * hash that outgrows it costs Redis more on every read, write and delete of the job.
     */
    private Map<String, Object> describe(JobOptions options) {
        Map<String, Object> described = new LinkedHashMap<>();
        Backoff backoff = options.backoff();
        if (!backoff.equals(Backoff.NONE)) {
            Map<String, Object> shape = new LinkedHashMap<>();
            shape.put("type", backoff.type().name().toLowerCase(Locale.ROOT));
            shape.put("delay", backoff.delay().toMillis());
            if (backoff.jitter() != 0) {
                shape.put("jitter", backoff.jitter());
            }
            described.put("backoff", shape);
        }
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
