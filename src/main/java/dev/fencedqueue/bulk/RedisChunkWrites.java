package dev.fencedqueue.bulk;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.redis.HashTags;

/**
 * The writes of one chunk into the Redis sink, recorded by {@link RedisChunkedJob#write} and applied by
 * {@code commitChunk.lua} in the same script as the fenced cursor advance, so that all of them land or none
 * does. Only commands whose arguments are checked here can be recorded; the script checks each key's type
 * before it writes anything (a key of another type refuses the whole chunk).
 *
 * <p>Every key must share the cursor key's hash tag (the part between the first {@code {} and the next
 * {@code }}, or the whole key without one): a Lua script may only touch keys of one hash slot in Redis
 * Cluster, and this keeps the sink portable to it.
 */
public final class RedisChunkWrites {

    /** Most arguments of one recorded command after its key (Lua's {@code unpack} limit, with margin). */
    public static final int MAX_ARGS = 1000;

    private final String cursorKey;
    private final String hashTag;
    private final Map<String, Integer> keyIndexes = new LinkedHashMap<>();
    private final List<String> args = new ArrayList<>();
    private int operations;

    /**
     * @param cursorKey the key of the job's cursor hash: KEYS[1] of the script
     */
    RedisChunkWrites(String cursorKey) {
        this.cursorKey = cursorKey;
        this.hashTag = HashTags.of(cursorKey);
        keyIndexes.put(cursorKey, 1);
    }

    /** {@code RPUSH key value...}: appends to a list. */
    public RedisChunkWrites rpush(String key, String... values) {
        return record("RPUSH", key, values);
    }

    /** {@code LPUSH key value...}: prepends to a list. */
    public RedisChunkWrites lpush(String key, String... values) {
        return record("LPUSH", key, values);
    }

    /** {@code LTRIM key start stop}: keeps a list's range (indexes as Redis takes them, negative from the end). */
    public RedisChunkWrites ltrim(String key, long start, long stop) {
        return record("LTRIM", key, Long.toString(start), Long.toString(stop));
    }

    /** {@code SADD key member...}: adds to a set. */
    public RedisChunkWrites sadd(String key, String... members) {
        return record("SADD", key, members);
    }

    /** {@code ZADD key score member}: adds to a sorted set. */
    public RedisChunkWrites zadd(String key, double score, String member) {
        if (Double.isNaN(score)) {
            throw new IllegalArgumentException("`score` must be a number");
        }
        return record("ZADD", key, Double.toString(score), member);
    }

    /** {@code HSET key field value}: sets a hash field. */
    public RedisChunkWrites hset(String key, String field, String value) {
        return record("HSET", key, field, value);
    }

    /** {@code HINCRBY key field increment}: adds to a hash field holding an integer. */
    public RedisChunkWrites hincrby(String key, String field, long increment) {
        return record("HINCRBY", key, field, Long.toString(increment));
    }

    /** {@code INCRBY key increment}: adds to a string holding an integer. */
    public RedisChunkWrites incrby(String key, long increment) {
        return record("INCRBY", key, Long.toString(increment));
    }

    /** {@code SET key value}: sets a string. */
    public RedisChunkWrites set(String key, String value) {
        return record("SET", key, value);
    }

    /**
     * {@code XADD key * field value...}: appends an entry with a Redis-generated id to a stream (an outbox that
     * consumers read with consumer groups).
     *
     * @param fieldsAndValues field, value, field, value...: an even number, at least two
     */
    public RedisChunkWrites xadd(String key, String... fieldsAndValues) {
        if (fieldsAndValues.length < 2 || fieldsAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("`fieldsAndValues` of XADD must be field, value pairs");
        }
        String[] withId = new String[fieldsAndValues.length + 1];
        withId[0] = "*";
        System.arraycopy(fieldsAndValues, 0, withId, 1, fieldsAndValues.length);
        return record("XADD", key, withId);
    }

    /** @return how many commands were recorded */
    public int size() {
        return operations;
    }

    /** @return the script's KEYS: the cursor key, then every key written, each once */
    List<String> keys() {
        return List.copyOf(keyIndexes.keySet());
    }

    /** @return the recorded commands as the script reads them: name, key index, argument count, arguments... */
    List<String> encoded() {
        return args;
    }

    private RedisChunkWrites record(String command, String key, String... values) {
        if (key == null || values.length == 0 || values.length > MAX_ARGS) {
            throw new IllegalArgumentException(command + " needs a key and 1 to " + MAX_ARGS + " arguments");
        }
        if (key.equals(cursorKey)) {
            throw new IllegalArgumentException("a chunk must not write the cursor key `" + cursorKey + "`");
        }
        if (!HashTags.of(key).equals(hashTag)) {
            throw new IllegalArgumentException("key `" + key + "` is not in the hash slot of the cursor key `"
                    + cursorKey + "`: give it the hash tag {" + hashTag + "}");
        }
        int index = keyIndexes.computeIfAbsent(key, k -> keyIndexes.size() + 1);
        args.add(command);
        args.add(Integer.toString(index));
        args.add(Integer.toString(values.length));
        for (String value : values) {
            if (value == null) {
                throw new IllegalArgumentException(command + " `" + key + "`: arguments must not be null");
            }
            args.add(value);
        }
        operations++;
        return this;
    }
}
