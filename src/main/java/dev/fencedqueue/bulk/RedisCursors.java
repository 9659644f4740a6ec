package dev.fencedqueue.bulk;

import java.util.Optional;

import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The fence of the Redis sink, the twin of {@link PostgresCursors}: each chunked job's cursor hash ({@code cursor},
 * {@code fencingToken}, {@code chunksDone}, {@code itemsDone}) holds its cursor and the fencing token of the epoch
 * that last claimed it (Kleppmann's fencing token, checked where the writes land). An epoch first claims the
 * hash ({@code claimCursor.lua}); each chunk then commits its writes with the cursor advance in one script
 * ({@code commitChunk.lua}) that refuses it whole when the token is older than the one held or the cursor is not
 * where the chunk started.
 */
@ApplicationScoped
public class RedisCursors {

    /** {@code commitChunk.lua}: a key holds another type (or a non-integer for an increment). */
    static final int WRONG_TYPE = -15;

    private final LuaScripts scripts;
    private final SharedConnection redis;

    public RedisCursors(LuaScripts scripts, SharedConnection redis) {
        this.scripts = scripts;
        this.redis = redis;
    }

    /**
     * Claims a job's cursor for an epoch: creates the hash at the start, or raises its fencing token to this
     * epoch's, unless a newer epoch holds it.
     *
     * @param cursorKey the job's cursor hash
     * @param fencingToken the epoch's fencing token
     * @param attemptId the attempt's id ({@link dev.fencedqueue.worker.JobContext#attemptId()}), recorded with the
     *        token: under that token only this attempt commits
     * @return the committed cursor, or empty when a newer epoch holds it (the caller is a zombie)
     */
    public Uni<Optional<Cursor>> claim(String cursorKey, long fencingToken, String attemptId) {
        return scripts.run(new ClaimCursorArgs(cursorKey, fencingToken, attemptId))
                .map(reply -> reply.get(0).toInteger() == 1 ? Optional.of(new Cursor(reply.get(1).toString(),
                        reply.get(2).toLong(), reply.get(3).toLong())) : Optional.empty());
    }

    /**
     * Commits one chunk: its writes, then the cursor advance, in one script, only while {@code fencingToken} is
     * not older than the one held and the cursor is still {@code from}.
     *
     * @param fencingToken the epoch's fencing token
     * @param attemptId the attempt's id: under the token held, only the attempt that claimed the cursor commits
     * @param from the committed cursor the chunk starts from
     * @param to the cursor after the chunk
     * @param items the chunk's items (count)
     * @param writes the chunk's writes; their first key is the cursor hash
     * @return {@code true} when committed, {@code false} when the fence refused it (nothing written); fails with
     *         {@link IllegalStateException} when a key holds another type (nothing written)
     */
    public Uni<Boolean> commit(long fencingToken, String attemptId, Cursor from, String to, int items,
            RedisChunkWrites writes) {
        return scripts.run(new CommitChunkArgs(fencingToken, attemptId, from, to, items, writes)).map(reply -> {
            int code = reply.get(0).toInteger();
            if (code == WRONG_TYPE) {
                throw new IllegalStateException("the chunk was not written: key `" + reply.get(1)
                        + "` holds " + reply.get(2) + ", not what the chunk writes to it");
            }
            if (code < 0) {
                throw new IllegalStateException("the chunk was not written: commitChunk refused command "
                        + reply.get(1));
            }
            return code == 1;
        });
    }

    /**
     * @param cursorKey a job's cursor hash
     * @return its committed cursor, or empty when the job never claimed one
     */
    public Uni<Optional<Cursor>> read(String cursorKey) {
        return redis.send(Request.cmd(Command.HMGET).arg(cursorKey).arg("cursor").arg("chunksDone").arg("itemsDone"))
                .map(reply -> reply.get(0) == null ? Optional.empty() : Optional.of(new Cursor(reply.get(0).toString(),
                        number(reply.get(1)), number(reply.get(2)))));
    }

    private static long number(Response value) {
        return value == null ? 0 : value.toLong();
    }
}
