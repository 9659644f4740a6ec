package dev.fencedqueue.redis;

/**
 * The Lua scripts of the queue: one atomic state transition each, in {@code src/main/resources/lua/}
 * named {@code <name>-<number of KEYS>.lua} (BullMQ's convention). Each file's header lists its KEYS,
 * ARGV (with units) and return codes.
 */
public enum LuaScript {
    ADD_JOB("addJob", 9),
    MOVE_TO_ACTIVE("moveToActive", 7),
    APPEND_EVENT("appendEvent", 3),
    EXTEND_LOCKS("extendLocks", 1),
    MOVE_TO_COMPLETED("moveToCompleted", 8),
    MOVE_TO_FAILED("moveToFailed", 10),
    MOVE_STALLED_JOBS_TO_WAIT("moveStalledJobsToWait", 9),
    ABORT_JOB("abortJob", 10),
    HAND_BACK_JOB("handBackJob", 7),
    SET_PAUSED("setPaused", 5),
    REMOVE_JOB("removeJob", 9),
    RETRY_JOB("retryJob", 7),
    CLEAN_JOBS("cleanJobs", 2),
    DRAIN_QUEUE("drainQueue", 5),
    OBLITERATE_QUEUE("obliterateQueue", 2),
    CHUNK_GATE("chunkGate", 2),
    REQUEST_ABORT("requestAbort", 2),
    SET_THROTTLE("setThrottle", 1),
    RESUME_JOB("resumeJob", 8),
    ACQUIRE_SINGLE_FLIGHT("acquireSingleFlight", 1),
    RELEASE_SINGLE_FLIGHT("releaseSingleFlight", 1),
    CLAIM_CURSOR("claimCursor", 1),
    ADD_TOKENS("addTokens", 5),
    RATE_LIMIT("rateLimit", 1),
    ADD_CHILDREN("addChildren", 4),
    CHILD_ENDED("childEnded", 12),
    MOVE_TO_WAITING_CHILDREN("moveToWaitingChildren", 9),
    UPSERT_SCHEDULER("upsertScheduler", 3),
    REMOVE_SCHEDULER("removeScheduler", 3),
    PAUSE_SCHEDULER("pauseScheduler", 3),
    PRODUCE_TICK("produceTick", 11),
    DROP_ARCHIVED_JOB("dropArchivedJob", 3),
    READY_JOBS("readyJobs", 3),
    RESERVE_LLM_BUDGET("reserveLlmBudget", 3),
    SETTLE_LLM_BUDGET("settleLlmBudget", 2),
    RENEW_LLM_LEASE("renewLlmLease", 1),
    CORRECT_LLM_BUDGET("correctLlmBudget", 1),
    PAUSE_LLM_BUDGET("pauseLlmBudget", 1),
    OPEN_LLM_CIRCUIT("openLlmCircuit", 1),
    CLOSE_LLM_CIRCUIT("closeLlmCircuit", 1),
    READ_LLM_BUDGET("readLlmBudget", 2),
    /** Takes the cursor key and then any number of keys (file {@code commitChunk-n.lua}). */
    COMMIT_CHUNK("commitChunk", LuaScript.VARIADIC);

    /** The key count of a script that takes one key or more. */
    public static final int VARIADIC = -1;

    private final String scriptName;
    private final int keyCount;

    LuaScript(String scriptName, int keyCount) {
        this.scriptName = scriptName;
        this.keyCount = keyCount;
    }

    /** @return the script's name, as used in error messages */
    public String scriptName() {
        return scriptName;
    }

    /** @return how many KEYS the script takes, or {@link #VARIADIC} for one or more */
    public int keyCount() {
        return keyCount;
    }

    /** @return the classpath resource of the script */
    public String resource() {
        return "lua/" + scriptName + "-" + (keyCount == VARIADIC ? "n" : Integer.toString(keyCount)) + ".lua";
    }
}
