package dev.fencedqueue.redis;

import java.util.List;

/**
 * One call of a Lua script with its arguments packed, as BullMQ's {@code scripts.ts} packs those of each of its
 * scripts: the script's KEYS and ARGV in the order its file's header lists them. Implemented by a record per script in
 * the package that calls it, whose Javadoc says once what each argument is and its unit; callers name the arguments
 * instead of placing them in a list. Run with {@link LuaScripts#run(ScriptCall)}.
 */
public interface ScriptCall {

    /** @return the script to run */
    LuaScript script();

    /** @return its KEYS, in the order of the script's header */
    List<String> keys();

    /** @return its ARGV as text, in the order of the script's header */
    List<String> args();
}
