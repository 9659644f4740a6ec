package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.Optional;

import dev.fencedqueue.redis.LuaScripts;
import io.smallrye.mutiny.Uni;

/**
 * The starts of jobs per client of one queue, counted in fixed windows in Redis ({@code rateLimit-1.lua}), so that
 * every instance of the fleet shares the count. Obtain it from {@link JobQueue#clientStarts()}.
 */
public final class ClientStarts {

    private final QueueKeys keys;
    private final LuaScripts scripts;

    /**
     * @param keys the queue's key layout
     * @param scripts the script registry
     */
    ClientStarts(QueueKeys keys, LuaScripts scripts) {
        this.keys = keys;
        this.scripts = scripts;
    }

    /**
     * Counts one start of a client's against its current window; a start that does not fit is not counted. The first
     * start of a window opens it, so a window never outlives its length.
     *
     * @param client the client's address, must not be {@code null}
     * @param limit the most starts a window admits, at least 1
     * @param window the window's length, must not be {@code null} (one under 1 ms counts nothing: Redis drops its
     *        counter at once)
     * @return empty when the start is admitted (and counted), else how long until the client's window ends (ms
     *         precision, possibly zero); fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis
     *         cannot be reached
     * @throws IllegalArgumentException when {@code limit} is below 1
     */
    public Uni<Optional<Duration>> count(String client, int limit, Duration window) {
        if (limit < 1) {
            throw new IllegalArgumentException("`limit` must be at least 1, was " + limit);
        }
        return scripts.run(new RateLimitArgs(keys, client, limit, window))
                .map(reply -> reply.get(0).toInteger() == 0 ? Optional.of(Duration.ofMillis(reply.get(1).toLong()))
                        : Optional.empty());
    }
}
