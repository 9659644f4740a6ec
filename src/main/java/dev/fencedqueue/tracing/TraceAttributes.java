package dev.fencedqueue.tracing;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The span attributes and event names of fenced-queue that the OpenTelemetry semantic conventions do not name (those
 * it uses from them: messaging, GenAI, {@code error.type}). Every key is under {@code fq.}.
 */
public final class TraceAttributes {

    /** The attempt's fencing token (its epoch): a number, the same as the job status's {@code fencingToken}. */
    public static final AttributeKey<Long> FENCING_TOKEN = AttributeKey.longKey("fq.job.fencing_token");
    /** The attempt's number, from 1 ({@code attemptsStarted}: takeovers and hand-backs count too). */
    public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("fq.job.attempt");
    /** The id of the worker that ran the attempt. */
    public static final AttributeKey<String> WORKER_ID = AttributeKey.stringKey("fq.worker.id");
    /**
     * How the attempt ended: {@code result}, {@code failed}, {@code zombie} (a newer run owns the job),
     * {@code handed-back} (the instance stopped), {@code aborted}, {@code waiting-children} (a flow's parent parked
     * until its children end), or {@code unrecorded} (its end could not be written; the job runs again once its lock
     * expires).
     */
    public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("fq.job.outcome");
    /** Why a zombie's or a failed attempt ended (the refused write, the failure's message). */
    public static final AttributeKey<String> REASON = AttributeKey.stringKey("fq.job.reason");
    /** Whether a failed attempt is retried (attempts are left). */
    public static final AttributeKey<Boolean> RETRIED = AttributeKey.booleanKey("fq.job.retried");
    /** The resume point of an attempt that took the job over: the last event id the stream held when it began. */
    public static final AttributeKey<String> RESUME_POINT = AttributeKey.stringKey("fq.job.resume_point");
    /** Whether the attempt continued what earlier runs committed (readers got {@code resume}, not {@code reset}). */
    public static final AttributeKey<Boolean> RESUMED = AttributeKey.booleanKey("fq.job.resumed");
    /** Span event: the attempt announced {@code resume} (it continues after its resume point). */
    public static final String RESUME = "fq.resume";
    /**
     * How an attempt that took the job over went on with its answer: {@code reattach}, {@code continue} (the answer
     * resumed) or {@code restart}.
     */
    public static final AttributeKey<String> TAKEOVER = AttributeKey.stringKey("fq.job.takeover");

    /**
     * What an LLM call's tokens cost at the model's prices ({@code fq.llm.price.*}), in their currency (a double, 6
     * decimals at most), on the call's GenAI span beside {@code gen_ai.usage.input_tokens} and {@code output_tokens}:
     * the same as the job status's {@code cost} for the attempt. OpenTelemetry's GenAI conventions name no cost
     * attribute, hence ours; absent without prices.
     */
    public static final AttributeKey<Double> LLM_COST = AttributeKey.doubleKey("fq.llm.cost");

    /** The id of a flow's root job, on the span that added the flow (a batch: no {@code messaging.message.id}). */
    public static final AttributeKey<String> FLOW_ROOT = AttributeKey.stringKey("fq.flow.root_id");
    /** How many children a running job's add made new (a later run adding the same children adds none). */
    public static final AttributeKey<Long> CHILDREN_ADDED = AttributeKey.longKey("fq.flow.children_added");

    /** The id of the job scheduler whose tick added the job. */
    public static final AttributeKey<String> SCHEDULER_ID = AttributeKey.stringKey("fq.scheduler.id");
    /** The scheduler's tick the job is for, ms since the epoch. */
    public static final AttributeKey<Long> SCHEDULER_TICK = AttributeKey.longKey("fq.scheduler.tick");

    /** Span event: a fenced write of the attempt that Redis (or the database) refused, for a newer epoch owns the job. */
    public static final String WRITE_REFUSED = "fq.write.refused";
    /** What the refused write was: {@code progress}, {@code completion}, {@code failure}, {@code chunk}, ... */
    public static final AttributeKey<String> WRITE = AttributeKey.stringKey("fq.write");

    /** A chunk's cursor before it (the last position the previous chunk completed; {@code ""} at the start). */
    public static final AttributeKey<String> CURSOR_FROM = AttributeKey.stringKey("fq.chunk.cursor.from");
    /** A chunk's cursor after it, committed with its writes. */
    public static final AttributeKey<String> CURSOR_TO = AttributeKey.stringKey("fq.chunk.cursor.to");
    /** The items a chunk applied (subscribers notified). */
    public static final AttributeKey<Long> CHUNK_ITEMS = AttributeKey.longKey("fq.chunk.items");
    /** The rows (or Redis entries) a chunk wrote in its transaction. */
    public static final AttributeKey<Long> CHUNK_ROWS = AttributeKey.longKey("fq.chunk.rows");
    /** How a chunk ended: {@code committed}, {@code stopped} (an abort at its boundary), {@code fenced}, {@code done}. */
    public static final AttributeKey<String> CHUNK_OUTCOME = AttributeKey.stringKey("fq.chunk.outcome");

    /** SSE events a reader's stream sent (replayed and live). */
    public static final AttributeKey<Long> SSE_EVENTS = AttributeKey.longKey("fq.sse.events");
    /** {@code reset} events a reader's stream sent (a newer run started over). */
    public static final AttributeKey<Long> SSE_RESETS = AttributeKey.longKey("fq.sse.resets");
    /** {@code resume} events a reader's stream sent (a newer run went on). */
    public static final AttributeKey<Long> SSE_RESUMES = AttributeKey.longKey("fq.sse.resumes");
    /** The {@code Last-Event-ID} a reader resumed after, when it sent one. */
    public static final AttributeKey<String> SSE_LAST_EVENT_ID = AttributeKey.stringKey("fq.sse.last_event_id");

    private TraceAttributes() {
    }
}
