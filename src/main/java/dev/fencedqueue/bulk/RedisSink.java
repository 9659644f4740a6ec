package dev.fencedqueue.bulk;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Uni;

/**
 * The Redis sink, for users without a database: a chunk is read (at the same time as the abort flag), then its
 * writes, the cursor advance and the fencing check run in one Lua script ({@link RedisCursors#commit}). Nothing
 * blocks: every step runs on the event loop.
 *
 * <p>Durability is Redis's: a chunk the script committed is as safe as any write Redis acknowledged
 * ({@code appendfsync} decides; see docs/operations.md, "Bulk jobs without PostgreSQL: the Redis sink").
 *
 * @param <I> one target of the job
 */
public final class RedisSink<I> implements ChunkSink<I> {

    private final RedisChunkedJob<I> job;
    private final RedisCursors cursors;
    private final SharedConnection redis;

    /**
     * @param job reads and records the chunks
     * @param cursors the fenced cursors in Redis
     * @param redis the connection the job reads through
     */
    public RedisSink(RedisChunkedJob<I> job, RedisCursors cursors, SharedConnection redis) {
        this.job = job;
        this.cursors = cursors;
        this.redis = redis;
    }

    @Override
    public ChunkSink.Attempt<I> attempt(JobContext context) {
        String cursorKey = job.cursorKey(context);
        return new ChunkSink.Attempt<>() {

            @Override
            public Uni<Optional<Cursor>> claim() {
                return cursors.claim(cursorKey, context.fencingToken(), context.attemptId());
            }

            @Override
            public Uni<Long> total() {
                return job.total(redis, context);
            }

            @Override
            public Uni<ChunkOutcome<I>> nextChunk(Cursor from, int size, CompletionStage<Boolean> proceed) {
                return Uni.combine().all().unis(job.read(redis, context, from.position(), size),
                        Uni.createFrom().completionStage(proceed)).asTuple()
                        .chain(both -> commit(from, both.getItem1(), both.getItem2()));
            }

            private Uni<ChunkOutcome<I>> commit(Cursor from, List<I> items, boolean mayCommit) {
                if (items.isEmpty()) {
                    return Uni.createFrom().item(ChunkOutcome.done());
                }
                String to = job.cursorAfter(items.get(items.size() - 1));
                if (!mayCommit) {
                    return Uni.createFrom().item(ChunkOutcome.stopped(items, to));
                }
                RedisChunkWrites writes = new RedisChunkWrites(cursorKey);
                job.write(writes, context, items);
                return cursors.commit(context.fencingToken(), context.attemptId(), from, to, items.size(), writes)
                        .map(committed -> committed ? ChunkOutcome.committed(items, to, writes.size())
                                : ChunkOutcome.fenced(items, to));
            }
        };
    }
}
