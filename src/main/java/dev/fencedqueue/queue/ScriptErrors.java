package dev.fencedqueue.queue;

import dev.fencedqueue.redis.LuaScript;
import io.vertx.mutiny.redis.client.Response;

/**
 * The one place where the negative return codes of the Lua scripts become typed exceptions. Codes:
 * -1 no such job, -7 stale fencing token, -8 job already finished,
 * -9 job not active, -11 job running (cannot be removed), -12 job not failed (cannot be retried),
 * -13 queue not paused (cannot be obliterated), -14 job not aborted (cannot be resumed), -15 idempotency key used for
 * another request ({@code addJob}).
 */
public final class ScriptErrors {

    public static final int NO_JOB = -1;
    public static final int STALE_TOKEN = -7;
    public static final int FINISHED = -8;
    public static final int NOT_ACTIVE = -9;
    public static final int RUNNING = -11;
    public static final int NOT_FAILED = -12;
    public static final int NOT_PAUSED = -13;
    public static final int NOT_ABORTED = -14;
    public static final int IDEMPOTENCY_KEY_REUSED = -15;

    private ScriptErrors() {
    }

    /**
     * Maps a script's return code to the exception that explains it.
     *
     * @param script the script that answered, for the message
     * @param queue the queue name
     * @param jobId the job the script was about
     * @param code the negative return code
     * @param token the fencing token the caller wrote with, or {@code -1} when it wrote without one
     * @return the exception to fail with; a {@link QueueException} for unknown codes
     */
    public static QueueException toException(LuaScript script, String queue, String jobId, long code, long token) {
        return toException(script, queue, jobId, code, token, null);
    }

    /**
     * Reads the reply {@code {code, state}} of a script that acts on one job and answers with the job's state before
     * the call ({@code abortJob}, {@code removeJob}, {@code retryJob}, {@code resumeJob}, {@code setThrottle}).
     *
     * @param script the script that answered, for the message
     * @param queue the queue name
     * @param jobId the job the script was about
     * @param reply the reply, must not be {@code null}
     * @return the job's state before the call, when the code is positive (the script acted)
     * @throws QueueException the exception {@link #toException} maps a negative code to; for {@code -8} a
     *         {@link JobFinishedException} that carries the job's terminal state
     */
    public static JobState stateOrThrow(LuaScript script, String queue, String jobId, Response reply) {
        int code = reply.get(0).toInteger();
        JobState state = reply.get(1).toString().isEmpty() ? null : JobState.of(reply.get(1).toString());
        if (code > 0) {
            return state;
        }
        throw toException(script, queue, jobId, code, -1, state);
    }

    private static QueueException toException(LuaScript script, String queue, String jobId, long code, long token,
            JobState state) {
        String where = "`" + script.scriptName() + "` refused for job `" + jobId + "` of queue `" + queue + "`";
        return switch ((int) code) {
            case NO_JOB -> new JobNotFoundException(queue, jobId);
            case FINISHED -> state != null ? new JobFinishedException(queue, jobId, state)
                    : new JobStateConflictException(where + ": the job already ended");
            case STALE_TOKEN -> new StaleFencingTokenException(where + ": fencing token " + token
                    + " is stale, a newer run (or another attempt under that token) owns the job");
            case NOT_ACTIVE -> new JobNotActiveException(where + ": the job is no longer active");
            case RUNNING -> new JobStateConflictException(where + ": the job is running");
            case NOT_FAILED -> new JobStateConflictException(where + ": the job has not failed");
            case NOT_ABORTED -> new JobStateConflictException(where + ": only an aborted job can be resumed");
            case IDEMPOTENCY_KEY_REUSED -> new IdempotencyKeyReusedException(queue, jobId);
            case NOT_PAUSED -> new JobStateConflictException("`" + script.scriptName() + "` refused for queue `" + queue
                    + "`: the queue must be paused first");
            default -> new QueueException(where + ": unexpected return code " + code);
        };
    }
}
