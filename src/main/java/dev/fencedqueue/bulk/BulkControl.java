package dev.fencedqueue.bulk;

import java.time.Duration;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.JobFinishedException;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.queue.ScriptErrors;
import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.LuaScripts;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The Redis side of chunked jobs, one Lua script per transition: the abort flag (set by an operator, read right
 * before each chunk), the throttle (changeable while a job runs), resuming an aborted job, and single-flight
 * keys (at most one running job per key).
 */
@ApplicationScoped
public class BulkControl {

    /**
     * What the runtime reads right before a chunk.
     *
     * @param abort whether an operator asked the job to stop at its next chunk boundary
     * @param throttle the throttle an operator set while the job ran, if any
     */
    public record Gate(boolean abort, Optional<Throttle> throttle) {
    }

    private final Queues queues;
    private final LuaScripts scripts;
    private final ObjectMapper json;
    private final int maxQueueEvents;

    /**
     * @param queues the jobs' queues, by name, not {@code null}
     * @param scripts the script registry, not {@code null}
     * @param json Jackson, which reads and writes a job's throttle, not {@code null}
     * @param events the queue event stream's bound ({@code fq.events.queue-stream-max-length}), not {@code null}
     */
    public BulkControl(Queues queues, LuaScripts scripts, ObjectMapper json, EventsConfig events) {
        this.queues = queues;
        this.scripts = scripts;
        this.json = json;
        this.maxQueueEvents = events.queueStreamMaxLength();
    }

    /**
     * @param queue the job's queue
     * @param jobId the job
     * @return whether an operator asked the job to stop, and its throttle when one was set while it ran
     */
    public Uni<Gate> gate(String queue, String jobId) {
        return scripts.run(new ChunkGateArgs(queues.keys(queue), jobId)).map(reply -> {
            String throttle = reply.get(1).toString();
            return new Gate(reply.get(0).toInteger() == 1,
                    throttle.isEmpty() ? Optional.empty() : Optional.of(parse(throttle)));
        });
    }

    /**
     * An operator's abort of a chunked job: a running job gets its abort flag (it stops at its next chunk
     * boundary and keeps its cursor); a job that is not running is aborted at once.
     *
     * @param queue the job's queue
     * @param jobId the job
     * @param ttl how long the flag lives, positive
     * @param reason why, recorded as the job's {@code failedReason} when it stops
     * @return the job's state before the call, and whether it was running (then it stops at a chunk boundary);
     *         fails with {@link dev.fencedqueue.queue.JobNotFoundException} or, for a finished job,
     *         {@link dev.fencedqueue.queue.JobFinishedException}
     */
    public Uni<AbortRequest> abort(String queue, String jobId, Duration ttl, String reason) {
        return scripts.run(new RequestAbortArgs(queues.keys(queue), jobId, ttl)).chain(reply -> {
            int code = reply.get(0).toInteger();
            if (code == 1) {
                return Uni.createFrom().item(new AbortRequest(jobId, JobState.ACTIVE, true));
            }
            if (code < 0) {
                throw ScriptErrors.toException(LuaScript.REQUEST_ABORT, queue, jobId, code, -1);
            }
            return queues.queue(queue).abort(jobId, reason)
                    .map(result -> new AbortRequest(jobId, result.previousState(), false));
        });
    }

    /**
     * Stops the caller's own running job now, at a chunk boundary, as an operator's abort asked: the job ends
     * {@code aborted} (resumable, its cursor kept) and its worker is told to cancel the attempt.
     */
    Uni<Void> abortAtBoundary(String queue, String jobId, String cursor) {
        return queues.queue(queue).abort(jobId, "aborted by operator at a chunk boundary (cursor `" + cursor + "`)")
                .replaceWithVoid();
    }

    /**
     * Sets the throttle of a job that has not finished; it applies from the job's next chunk.
     *
     * @return the job's state; fails with {@link dev.fencedqueue.queue.JobNotFoundException} or, for a
     *         completed or failed job, {@link dev.fencedqueue.queue.JobFinishedException}
     */
    public Uni<JobState> setThrottle(String queue, String jobId, Throttle throttle) {
        String text;
        try {
            text = json.writeValueAsString(throttle.normalized());
        } catch (JsonProcessingException e) {
            return Uni.createFrom().failure(e);
        }
        return scripts.run(new SetThrottleArgs(queues.keys(queue), jobId, text))
                .map(reply -> ScriptErrors.stateOrThrow(LuaScript.SET_THROTTLE, queue, jobId, reply));
    }

    /**
     * Resumes an aborted chunked job: it goes back to the queue and its next run (a new epoch) continues after
     * its last committed chunk.
     *
     * @return the job's state before the call; fails with {@link dev.fencedqueue.queue.JobNotFoundException}
     *         or, when the job is not aborted, {@link dev.fencedqueue.queue.JobStateConflictException}
     */
    public Uni<JobState> resume(String queue, String jobId) {
        return scripts.run(new ResumeJobArgs(queues.keys(queue), jobId, maxQueueEvents))
                .map(reply -> ScriptErrors.stateOrThrow(LuaScript.RESUME_JOB, queue, jobId, reply));
    }

    /**
     * Tries to take a single-flight key for a running job.
     *
     * @return empty when the job holds the key now, else the id of the running job that holds it
     */
    Uni<Optional<String>> acquireSingleFlight(String queue, String key, String jobId) {
        return scripts.run(SingleFlightArgs.acquire(queues.keys(queue), key, jobId))
                .map(reply -> reply.get(0).toInteger() == 1 ? Optional.empty() : Optional.of(reply.get(1).toString()));
    }

    /** Gives up a single-flight key if the job holds it. */
    Uni<Void> releaseSingleFlight(String queue, String key, String jobId) {
        return scripts.run(SingleFlightArgs.release(queues.keys(queue), key, jobId)).replaceWithVoid();
    }

    private Throttle parse(String text) {
        try {
            return json.readValue(text, Throttle.class);
        } catch (JsonProcessingException e) {
            return Throttle.NONE;
        }
    }

    /**
     * What an operator's abort did.
     *
     * @param jobId the job
     * @param previousState its state when the abort was asked
     * @param atChunkBoundary {@code true} when the job was running: it stops at its next chunk boundary
     */
    public record AbortRequest(String jobId, JobState previousState, boolean atChunkBoundary) {
    }
}
