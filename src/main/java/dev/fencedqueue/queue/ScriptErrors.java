package dev.fencedqueue.queue;

import dev.fencedqueue.redis.LuaScript;


/**
 * The one place where the negative return codes of the Lua scripts become typed exceptions. Codes:
 * -1 no such job, -7 stale fencing token, -8 job already finished,
 * -9 job not active, -11 job running (cannot be removed), -12 job not failed (cannot be retried),
 * -13 queue not paused (cannot be obliterated), -14 job not aborted (cannot be resumed).
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
        String where = "`" + script.scriptName() + "` refused for job `" + jobId + "` of queue `" + queue + "`";
        return switch ((int) code) {
            case NO_JOB -> new JobNotFoundException(queue, jobId);
            case STALE_TOKEN -> new StaleFencingTokenException(where + ": fencing token " + token
                    + " is stale, a newer run (or another attempt under that token) owns the job");
            case NOT_ACTIVE -> new JobNotActiveException(where + ": the job is no longer active");
            case RUNNING -> new JobStateConflictException(where + ": the job is running");
            case NOT_FAILED -> new JobStateConflictException(where + ": the job has not failed");
            case NOT_ABORTED -> new JobStateConflictException(where + ": only an aborted job can be resumed");
            case NOT_PAUSED -> new JobStateConflictException("`" + script.scriptName() + "` refused for queue `" + queue
                    + "`: the queue must be paused first");
            default -> new QueueException(where + ": unexpected return code " + code);
        };
    }
}
