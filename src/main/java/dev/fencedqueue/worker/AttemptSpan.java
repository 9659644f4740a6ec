package dev.fencedqueue.worker;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.Spans;
import dev.fencedqueue.tracing.TraceAttributes;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;

/**
 * The span of one attempt of a job ({@code process <queue>}, kind {@code CONSUMER}): a child of the span that added
 * the job, so every attempt of the job, on any instance, is in the job's one trace. It carries the attempt's fencing
 * token, number and worker, gets an event for each of its fenced writes that was refused, and ends once with how the
 * attempt ended ({@link TraceAttributes#OUTCOME}), after the answers of its writes still on their way (a zombie's
 * refusals among them; every write gets an answer, or fails within the Redis command timeout). Thread-safe: it ends at
 * most once, from whichever thread is first.
 */
final class AttemptSpan {

    /** The span of a job run without tracing (tests that build jobs by hand). */
    static final AttemptSpan NONE = new AttemptSpan(Span.getInvalid());

    private final Span span;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Fenced writes sent and not answered yet; guarded by {@code this}. */
    private int writesOnTheirWay;
    /** The end asked for while writes were on their way; guarded by {@code this}. */
    private String pendingOutcome;
    private String pendingReason;

    private AttemptSpan(Span span) {
        this.span = span;
    }

    /**
     * Starts the span of an attempt.
     *
     * @param tracing the spans of jobs
     * @param activated the attempt as its activation returned it
     * @param workerId the worker that runs it
     * @return the span, started
     */
    static AttemptSpan start(JobTracing tracing, Activation.Activated activated, String workerId) {
        var job = activated.job();
        var builder = tracing.process(job.queue(), job.id(), job.traceParent())
                .setAttribute(TraceAttributes.FENCING_TOKEN, job.fencingToken())
                .setAttribute(TraceAttributes.ATTEMPT, (long) job.attemptsStarted())
                .setAttribute(TraceAttributes.WORKER_ID, workerId);
        if (activated.resumePoint() != null) {
            builder.setAttribute(TraceAttributes.RESUME_POINT, activated.resumePoint());
        }
        if (job.schedulerId() != null) {
            builder.setAttribute(TraceAttributes.SCHEDULER_ID, job.schedulerId());
        }
        return new AttemptSpan(builder.startSpan());
    }

    /** @return the context of the attempt, for the spans of what it does (its LLM calls, its chunks, its children) */
    Context context() {
        return Context.root().with(span);
    }

    /**
     * Records a fenced write of the attempt that was refused (a newer epoch owns the job), as a span event.
     *
     * @param write what was written ({@code progress}, {@code completion}, ...)
     * @param why the refusal, as the script's error says it
     */
    void refused(String write, String why) {
        span.addEvent(TraceAttributes.WRITE_REFUSED, Attributes.of(TraceAttributes.WRITE, write,
                TraceAttributes.REASON, why));
    }

    /**
     * Records that the attempt continues what earlier runs committed (it announced {@code resume}), as a span event.
     *
     * @param resumeFrom the resume point: the last event of earlier runs it continues after
     */
    void resumed(String resumeFrom) {
        span.setAttribute(TraceAttributes.RESUMED, true);
        span.addEvent(TraceAttributes.RESUME, Attributes.of(TraceAttributes.RESUME_POINT, resumeFrom));
    }

    /**
     * Ends the span, once: later calls do nothing.
     *
     * @param outcome how the attempt ended ({@link TraceAttributes#OUTCOME})
     * @param reason why it ended so, or {@code null} (a result)
     */
    void end(String outcome, String reason) {
        synchronized (this) {
            if (writesOnTheirWay > 0) {
                if (pendingOutcome == null) {
                    pendingOutcome = outcome;
                    pendingReason = reason;
                }
                return; // ends once they are answered, so that their refusals are in it
            }
        }
        endNow(outcome, reason);
    }

    /** Counts a fenced write of the attempt sent to Redis. */
    synchronized void writeSent() {
        writesOnTheirWay++;
    }

    /** Counts a fenced write answered (or failed); the last one ends a span whose end was asked for meanwhile. */
    void writeAnswered() {
        String outcome;
        String reason;
        synchronized (this) {
            if (--writesOnTheirWay > 0 || pendingOutcome == null) {
                return;
            }
            outcome = pendingOutcome;
            reason = pendingReason;
        }
        endNow(outcome, reason);
    }

    private void endNow(String outcome, String reason) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        span.setAttribute(TraceAttributes.OUTCOME, outcome);
        if (reason != null) {
            span.setAttribute(TraceAttributes.REASON, reason);
        }
        span.end();
    }

    /**
     * Ends a failed attempt's span (status {@code ERROR}), once.
     *
     * @param failure what failed it
     * @param retried whether the job runs again (attempts are left)
     */
    void failed(Throwable failure, boolean retried) {
        if (!ended.get()) { // attributes set after the end are dropped anyway
            span.setAttribute(TraceAttributes.RETRIED, retried);
            Spans.failed(span, failure);
        }
        end("failed", String.valueOf(failure.getMessage()));
    }

    /** @return whether the span is exported (tracing is on and the trace sampled) */
    boolean isRecording() {
        return span.isRecording();
    }
}
