package dev.fencedqueue.queue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.Spans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes;
import io.smallrye.mutiny.Uni;

/**
 * The KEYS and ARGV of one queue's {@code addJob} script ({@code addJob-*.lua} lists them with their units), and its
 * call: the one way a job enters a queue, for {@link JobQueue}'s adds, a flow's jobs ({@code FlowProducer}), a
 * scheduler's jobs run now, and the scripts that add a job as one step of theirs ({@code produceTick}).
 */
public final class AddJobArgs {

    /**
     * The parent policy of a job added without a parent ({@code fail}: what a flow's child does by default), as
     * {@code addJob} stores it.
     */
    public static final String NO_PARENT_POLICY = "fail";

    private final QueueContext ctx;
    private final QueueKeys keys;

    /** @param ctx the queue the jobs go to, not {@code null} */
    public AddJobArgs(QueueContext ctx) {
        this.ctx = ctx;
        this.keys = ctx.keys();
    }

    /** @return the KEYS of {@code addJob} for this queue */
    public List<String> keys() {
        return List.of(keys.waitList(), keys.delayed(), keys.prioritized(), keys.marker(), keys.meta(), keys.idCounter(),
                keys.events(), keys.waitingChildren(), keys.pendingChildren());
    }

    /**
     * @param name the job name, must not be blank
     * @param data the job's data, serialized to JSON with Jackson; may be {@code null}
     * @param options the job options, must not be {@code null}
     * @param parentKey a flow's child's parent's job key, {@code ""} for none
     * @param policy what the job's failure does to its parent: {@code fail} ({@link #NO_PARENT_POLICY} without a
     *        parent), {@code ignore} or {@code remove}
     * @param schedulerId the scheduler that produced the job, {@code ""} for none
     * @param tick the scheduler's tick the job is for (ms since the epoch), {@code ""} for none
     * @param traceParent the W3C {@code traceparent} of the span that adds the job, {@code ""} for none
     * @return the ARGV of {@code addJob} up to the children (a mutable list, to append them to: two per child, its job
     *         key and its spec)
     * @throws IllegalArgumentException when {@code name} is blank, {@code options} is {@code null} or {@code data}
     *         cannot be serialized
     */
    public List<String> args(String name, Object data, JobOptions options, String parentKey, String policy,
            String schedulerId, String tick, String traceParent) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("`name` must not be blank");
        }
        if (options == null) {
            throw new IllegalArgumentException("`options` must not be null");
        }
        Deduplication dedup = options.deduplication();
        List<String> args = new ArrayList<>(25);
        Collections.addAll(args, keys.prefix(), options.jobId() == null ? "" : options.jobId(), name,
                toJson(data), toJson(describe(options)), Integer.toString(options.attempts()),
                Long.toString(options.delay().toMillis()), Integer.toString(options.priority()),
                options.lifo() ? "1" : "0", options.eventStream() ? "1" : "0",
                options.idempotencyKey() == null ? "" : options.idempotencyKey(),
                Long.toString(options.idempotencyTtl().toMillis()), options.removeOnComplete().encode(ctx.archive().isActive()),
                options.removeOnFail().encode(ctx.archive().isActive()), dedup == null ? "" : dedup.id(),
                dedup == null || dedup.ttl() == null ? "0" : Long.toString(dedup.ttl().toMillis()),
                options.timeout() == null ? "0" : Long.toString(options.timeout().toMillis()), ctx.queueEventsArg(),
                parentKey, policy, schedulerId, tick, traceParent, storedTenant(options.tenant()));
        return args;
    }

    /**
     * @param args the ARGV of {@code addJob} ({@link #args}, the children's appended when it has any)
     * @return the call of {@code addJob} with this queue's KEYS and {@code args}
     */
    ScriptCall call(List<String> args) {
        return new Call(keys(), args);
    }

    /**
     * Runs {@code addJob} in this queue, and waits for the replicas the connection's durability asks for.
     *
     * @param args its ARGV ({@link #args}, with the children's appended when the job has any), not {@code null}
     * @return the job id and whether the job was created; fails with the {@link QueueException} of a refused add
     *         ({@link IdempotencyKeyReusedException}), and with {@link dev.fencedqueue.redis.RedisUnavailableException}
     *         when Redis is unreachable
     */
    public Uni<AddResult> run(List<String> args) {
        return ctx.scripts().runReplicated(call(args)).map(reply -> {
            String jobId = reply.get(0).toString();
            int code = reply.get(1).toInteger();
            if (code < 0) {
                throw ScriptErrors.toException(LuaScript.ADD_JOB, keys.queue(), jobId, code, -1);
            }
            return AddResult.of(jobId, code);
        });
    }

    /**
     * Runs {@code addJob} like {@link #run}, under a {@code send} span (a child of the caller's, OpenTelemetry's
     * messaging conventions) that names the added job's id, so that the job's attempts join that trace.
     *
     * @param args its ARGV given the span's W3C {@code traceparent} ({@link #args} with it), not {@code null}
     * @return the job id and whether the job was created; fails as {@link #run} does
     */
    public Uni<AddResult> runSent(Function<String, List<String>> args) {
        Span send = ctx.tracing().send(keys.queue(), Context.current(), 1);
        return Spans.ending(send, run(args.apply(JobTracing.traceParent(send))),
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
            return ctx.json().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("`data` cannot be serialized to JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** A call of {@code addJob}, its KEYS and ARGV built by {@link AddJobArgs}. */
    private record Call(List<String> keys, List<String> args) implements ScriptCall {

        @Override
        public LuaScript script() {
            return LuaScript.ADD_JOB;
        }
    }
}
