package dev.fencedqueue.queue;

/**
 * The Lua scripts of the queue: one atomic state transition each, in {@code src/main/resources/lua/}
 * named {@code <name>-<number of KEYS>.lua} (BullMQ's convention). Each file's header lists its KEYS,
 * ARGV (with units) and return codes.
 */
public enum LuaScript {
    ADD_JOB("addJob", 6),
    MOVE_TO_ACTIVE("moveToActive", 6),
    APPEND_EVENT("appendEvent", 3),
    EXTEND_LOCKS("extendLocks", 1),
    MOVE_TO_COMPLETED("moveToCompleted", 6),
    MOVE_TO_FAILED("moveToFailed", 11),
    MOVE_STALLED_JOBS_TO_WAIT("moveStalledJobsToWait", 8),
    ABORT_JOB("abortJob", 9);

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

    /** @return how many KEYS the script takes */
    public int keyCount() {
        return keyCount;
    }

    /** @return the classpath resource of the script */
    public String resource() {
        return "lua/" + scriptName + "-" + keyCount + ".lua";
    }
}
