package dev.fencedqueue.bulk;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.fencedqueue.redis.LuaScript;
import dev.fencedqueue.redis.ScriptCall;

/**
 * A call of {@code commitChunk-n.lua}: a chunk's writes and its cursor advance, fenced. KEYS: the job's cursor hash,
 * then the keys the chunk writes ({@link RedisChunkWrites#keys}). ARGV in order: the fencing token, the attempt's id,
 * the cursor the chunk starts from, the cursor after it, the chunk's items (count), the number of commands, then the
 * commands ({@link RedisChunkWrites#encoded}).
 *
 * @param fencingToken the epoch's fencing token
 * @param attemptId the attempt's id: under the token held, only the attempt that claimed the cursor commits
 * @param from the committed cursor the chunk starts from
 * @param to the cursor after the chunk
 * @param items the chunk's items (count)
 * @param writes the chunk's writes; their first key is the cursor hash
 */
record CommitChunkArgs(long fencingToken, String attemptId, Cursor from, String to, int items, RedisChunkWrites writes)
        implements ScriptCall {

    @Override
    public LuaScript script() {
        return LuaScript.COMMIT_CHUNK;
    }

    @Override
    public List<String> keys() {
        return writes.keys();
    }

    @Override
    public List<String> args() {
        List<String> args = new ArrayList<>(6 + writes.encoded().size());
        Collections.addAll(args, Long.toString(fencingToken), attemptId, from.position(), to, Integer.toString(items),
                Integer.toString(writes.size()));
        args.addAll(writes.encoded());
        return args;
    }
}
