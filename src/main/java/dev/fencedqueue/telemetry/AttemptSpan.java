package dev.fencedqueue.telemetry;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.Job;
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
public final class AttemptSpan {

    /** The span of an attempt that is not traced (tracing off, or jobs built by hand in tests): every call a no-op. */
    public static final AttemptSpan NONE = new AttemptSpan(Span.getInvalid());

    /** How an attempt ended: its outcome, why, and for a failure what failed it and whether it is retried. */
    private record Ending(String outcome, String reason, Throwable failure, boolean retried) {
    }

    private final Span span;
    /** Whether the span is exported: only then are writes counted and its end deferred for their answers. */
    private final boolean recording;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Fenced writes sent and not answered yet; guarded by {@code this}. */
    private int writesOnTheirWay;
    /** The first end asked for while writes were on their way; guarded by {@code this}. */
    private Ending pending;

    private AttemptSpan(Span span) {
        this.span = span;
        this.recording = span.isRecording();
    }

    /**
     * Starts the span of an attempt.
     *
     * @param tracing the spans of jobs
     * @param job the job as the attempt's activation returned it
     * @param resumePoint the attempt's resume point, {@code null} for none
     * @param workerId the worker that runs it
     * @return the span, started; {@link #NONE} while tracing is off
     */
    public static AttemptSpan start(JobTracing tracing, Job job, String resumePoint, String workerId) {
        if (!tracing.enabled()) {
            return NONE;
        }
        var builder = tracing.process(job.queue(), job.id(), job.traceParent())
                .setAttribute(TraceAttributes.FENCING_TOKEN, job.fencingToken())
                .setAttribute(TraceAttributes.ATTEMPT, (long) job.attemptsStarted())
                .setAttribute(TraceAttributes.WORKER_ID, workerId);
        if (resumePoint != null) {
            builder.setAttribute(TraceAttributes.RESUME_POINT, resumePoint);
        }
        if (job.schedulerId() != null) {
            builder.setAttribute(TraceAttributes.SCHEDULER_ID, job.schedulerId());
        }
        return new AttemptSpan(builder.startSpan());
    }

    /**
     * @return the context of the attempt, for the spans of what it does (its LLM calls, its chunks, its children): a
     *         trace not sampled stays so below it; {@link Context#root()} when tracing is off
     */
    public Context context() {
        return span.getSpanContext().isValid() ? Context.root().with(span) : Context.root();
    }

    /**
     * Records a fenced write of the attempt that was refused (a newer epoch owns the job), as a span event.
     *
     * @param write what was written ({@code progress}, {@code completion}, ...)
     * @param why the refusal, as the script's error says it
     */
    public void refused(String write, String why) {
        if (recording) {
            span.addEvent(TraceAttributes.WRITE_REFUSED, Attributes.of(TraceAttributes.WRITE, write,
                    TraceAttributes.REASON, String.valueOf(why)));
        }
    }

    /**
     * Records that the attempt continues what earlier runs committed (it announced {@code resume}), as a span event.
     *
     * @param resumeFrom the resume point: the last event of earlier runs it continues after
     */
    public void resumed(String resumeFrom) {
        if (recording) {
            span.setAttribute(TraceAttributes.RESUMED, true);
            span.addEvent(TraceAttributes.RESUME, Attributes.of(TraceAttributes.RESUME_POINT, resumeFrom));
        }
    }

    /**
     * Ends the span, once: later calls do nothing.
     *
     * @param outcome how the attempt ended ({@link TraceAttributes#OUTCOME})
     * @param reason why it ended so, or {@code null} (a result)
     */
    public void end(String outcome, String reason) {
        end(new Ending(outcome, reason, null, false));
    }

    /**
     * Ends a failed attempt's span (status {@code ERROR}), once.
     *
     * @param failure what failed it
     * @param retried whether the job runs again (attempts are left)
     */
    public void failed(Throwable failure, boolean retried) {
        end(new Ending("failed", Failures.describe(failure), failure, retried));
    }

    /** Counts a fenced write of the attempt sent to Redis. */
    public void writeSent() {
        if (recording) {
            synchronized (this) {
                writesOnTheirWay++;
            }
        }
    }

    /** Counts a fenced write answered (or failed); the last one ends a span whose end was asked for meanwhile. */
    public void writeAnswered() {
        if (!recording) {
            return;
        }
        Ending ending;
        synchronized (this) {
            if (--writesOnTheirWay > 0 || pending == null) {
                return;
            }
            ending = pending;
        }
        endNow(ending);
    }

    /** @return whether the span is exported (tracing is on and the trace sampled) */
    public boolean isRecording() {
        return recording;
    }

    private void end(Ending ending) {
        if (!recording) {
            return;
        }
        synchronized (this) {
            if (writesOnTheirWay > 0) {
                if (pending == null) {
                    pending = ending;
                }
                return; // ends once they are answered, so that their refusals are in it
            }
        }
        endNow(ending);
    }

    private void endNow(Ending ending) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        span.setAttribute(TraceAttributes.OUTCOME, ending.outcome());
        if (ending.reason() != null) {
            span.setAttribute(TraceAttributes.REASON, ending.reason());
        }
        if (ending.failure() != null) {
            span.setAttribute(TraceAttributes.RETRIED, ending.retried());
            Spans.failed(span, ending.failure());
        }
        span.end();
    }
}
