package dev.fencedqueue.bulk;

import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code claimCursor-1.lua}: claims a chunked job's cursor hash in the Redis sink for an epoch. KEYS: the
 * cursor hash. ARGV in order: the epoch's fencing token and the attempt's id.
 *
 * @param cursorKey the job's cursor hash
 * @param fencingToken the epoch's fencing token
 * @param attemptId the attempt's id (its lock token), recorded with the token
 */
record ClaimCursorArgs(String cursorKey, long fencingToken, String attemptId) implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.CLAIM_CURSOR;
    }

    @Override
    public List<String> keys() {
        return List.of(cursorKey);
    }

    @Override
    public List<String> args() {
        return List.of(Long.toString(fencingToken), attemptId);
    }
}
