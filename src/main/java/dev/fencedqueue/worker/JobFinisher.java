package dev.fencedqueue.worker;

import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.Failures;
import dev.fencedqueue.events.StoredEvent;
import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Reconnect;
import dev.fencedqueue.redis.RedisFailures;
import dev.fencedqueue.worker.WorkerScripts.HandBackJobArgs;
import dev.fencedqueue.worker.WorkerScripts.MoveToFailedArgs;
import dev.fencedqueue.worker.WorkerScripts.NextJobs;
import io.smallrye.mutiny.Uni;
import org.jboss.logging.Logger;

/**
 * Writes how an attempt ended: completion ({@code moveToCompleted}), failure ({@code moveToFailed}, which
 * retries after the job's backoff while attempts remain) or hand-back on shutdown ({@code handBackJob}).
 * All are fenced: only the current epoch's owner can end a job. Completion and failure also activate the
 * worker's next jobs in the same round trip; completions of the same turn of the worker's context share one
 * write ({@link CompletionBatcher}). Writes that fail because Redis is briefly unreachable are
 * retried for up to the lock duration, so a Redis restart does not turn a finished job into a rerun.
 */
final class JobFinisher {

    private static final Logger LOG = Logger.getLogger(JobFinisher.class);

    /**
     * What a finishing write did.
     *
     * @param code 0 completed or failed for good, 1 failed and retried later, negative when the worker no
     *        longer owns the job (-1, -7, -9; nothing was written)
     * @param next the jobs activated for the worker in the same round trip
     */
    record Outcome(long code, Activation next) {
    }

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final ObjectMapper json;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    private final JobProcessor processor;
    private final WorkerOptions options;
    private final CompletionBatcher batcher;
    private final Executor onContext;

    /**
     * @param keys the queue's key layout
     * @param scripts the script registry
     * @param json Jackson, which writes a job's result and reads its backoff option
     * @param maxStreamLength the job event stream's maximum length, entries
     * @param maxQueueEvents the queue event stream's maximum length, entries
     * @param processor the worker's processor, whose custom backoff hook a retry may ask
     * @param options the worker's options
     * @param onContext runs a task on the worker's context
     */
    JobFinisher(QueueKeys keys, LuaScripts scripts, ObjectMapper json, int maxStreamLength, int maxQueueEvents,
            JobProcessor processor, WorkerOptions options, Executor onContext) {
        this.keys = keys;
        this.scripts = scripts;
        this.json = json;
        this.maxStreamLength = maxStreamLength;
        this.maxQueueEvents = maxQueueEvents;
        this.processor = processor;
        this.options = options;
        this.batcher = new CompletionBatcher(keys, scripts, maxStreamLength, maxQueueEvents, options, onContext);
        this.onContext = onContext;
    }

    /**
     * Completes a job, together with the other completions of the same turn of the worker's context
     * (see {@link CompletionBatcher}); call on that context.
     *
     * @param job the job
     * @param result the processor's result
     * @param fetch how many next jobs to activate for the worker
     * @param lockPrefix lock token prefix for those jobs, used when the result cannot be serialized and
     *        the job fails instead
     * @param written told the outcome on the worker's context
     */
    void complete(ActiveJob job, Object result, int fetch, String lockPrefix, CompletionBatcher.Written written) {
        String returnValue;
        try {
            returnValue = result == null ? "null" : json.writeValueAsString(result);
        } catch (JsonProcessingException e) {
            fail(job, new UnrecoverableJobException("result cannot be serialized to JSON: " + e.getOriginalMessage()),
                    fetch, lockPrefix).emitOn(onContext).subscribe().with(
                            outcome -> written.written(outcome.code(), outcome.next()), written::failed);
            return;
        }
        // The 'completed' event is written only for a job that keeps an event stream (a fixed option).
        String event = !job.job().eventStream() ? "" : StoredEvent.completed(options.workerId(), returnValue);
        batcher.complete(job, returnValue, event, fetch, written);
    }

    /**
     * @param job the job
     * @param failure why the attempt failed
     * @param fetch how many next jobs to activate for the worker
     * @param lockPrefix lock token prefix for those jobs
     * @return the outcome
     */
    Uni<Outcome> fail(ActiveJob job, Throwable failure, int fetch, String lockPrefix) {
        long retryDelay = retryDelay(job, failure);
        NextJobs next = new NextJobs(options.workerId(), fetch, lockPrefix, options.lockDuration());
        return finish(new MoveToFailedArgs(keys, job, reason(failure), retryDelay, next, maxStreamLength,
                maxQueueEvents));
    }

    /**
     * Hands a job back to the queue without counting an attempt.
     *
     * @param job the job, whose pipeline was cancelled or ended
     * @param delay how long the queue's dispatch is held, fleet-wide (a run met a rate limit outside the queue: the
     *        job waits at the front of its wait list, and no job starts meanwhile); zero for at once
     * @return 0 when handed back, negative when the worker no longer owned it
     */
    Uni<Long> handBack(ActiveJob job, Duration delay) {
        return retrying(scripts.run(new HandBackJobArgs(keys, job, delay, maxQueueEvents)).map(reply -> reply.toLong()),
                options);
    }

    private Uni<Outcome> finish(MoveToFailedArgs call) {
        return retrying(scripts.run(call)
                .map(reply -> new Outcome(reply.get(0).toLong(), Activation.parse(reply, 1, keys.queue(),
                        call.next().lockPrefix(), options.workerId()))), options);
    }

    /**
     * @param write a finishing write
     * @param options the worker's options
     * @return the write, resubscribed while Redis is unreachable, for up to the lock duration (the
     *         retrying pipeline, which allocates a queue and a timer, is built only after a first failure)
     */
    private static <T> Uni<T> retrying(Uni<T> write, WorkerOptions options) {
        return write.onFailure(RedisFailures::isConnectionFailure).recoverWithUni(() -> retried(write, options));
    }

    /**
     * @param write a finishing write whose first sending failed because Redis was unreachable
     * @param options the worker's options
     * @return the write, sent again at once and then resubscribed while Redis is unreachable
     *         ({@link Reconnect#finishing}: back-off from 100 ms to 2 s), for up to the lock duration; fails with the
     *         last failure after that, or at once with a Redis error
     */
    private static <T> Uni<T> retried(Uni<T> write, WorkerOptions options) {
        return Reconnect.finishing(write, RedisFailures::isConnectionFailure, options.lockDuration());
    }

    /** @return the wait (ms) before the next attempt, 0 for at once, -1 when the job fails for good */
    private long retryDelay(ActiveJob job, Throwable failure) {
        int attemptsMade = job.job().attemptsMade() + 1;
        if (failure instanceof UnrecoverableJobException || attemptsMade >= job.job().attempts()) {
            return -1;
        }
        Backoff backoff = backoff(job);
        if (backoff.type() == Backoff.Type.CUSTOM) {
            try {
                return processor.backoff(job.job(), attemptsMade, failure, backoff.delay())
                        .map(wait -> Math.max(0, wait.toMillis())).orElse(-1L);
            } catch (RuntimeException e) {
                // a broken hook must not keep a job retrying
                LOG.warnf(e, "job %s of queue %s: the processor's custom backoff hook threw after attempt %d; the job "
                        + "fails for good", job.id(), keys.queue(), attemptsMade);
                return -1;
            }
        }
        return backoff.delayMillis(attemptsMade);
    }

    private Backoff backoff(ActiveJob job) {
        try {
            JsonNode node = json.readTree(job.job().options()).path("backoff");
            if (node.isMissingNode()) {
                return Backoff.NONE;
            }
            return new Backoff(Backoff.Type.valueOf(node.path("type").asText("fixed").toUpperCase(Locale.ROOT)),
                    Duration.ofMillis(node.path("delay").asLong(0)), node.path("jitter").asDouble(0));
        } catch (IOException | IllegalArgumentException e) {
            return Backoff.NONE;
        }
    }

    /** @return the job's {@code failedReason} for a failed attempt, in words ({@link Failures#reason}) */
    static String reason(Throwable failure) {
        return Failures.reason(failure);
    }
}
