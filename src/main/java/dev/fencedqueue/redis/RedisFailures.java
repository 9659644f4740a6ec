package dev.fencedqueue.redis;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

import dev.fencedqueue.Failures;
import io.netty.channel.ConnectTimeoutException;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.redis.client.impl.PooledRedisConnection;

/**
 * What a failure of a Redis command means, and what to do with the connection it happened on: the failure helpers
 * shared by the connections of this package and by the callers that retry or report an unreachable Redis.
 */
public final class RedisFailures {

    private RedisFailures() {
    }

    /**
     * Tells whether a failure means Redis is unreachable (as opposed to Redis answering with an error).
     *
     * @param failure any failure, must not be {@code null}
     * @return {@code true} for refused, reset or closed connections ({@code CONNECTION_CLOSED} from the
     *         Vert.x client included) and for timeouts, also when they are the cause of {@code failure}
     */
    public static boolean isConnectionFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof RedisUnavailableException || t instanceof TimeoutException
                    || t instanceof IOException || t instanceof ConnectTimeoutException) {
                return true;
            }
            String message = String.valueOf(t.getMessage());
            if (message.startsWith("CONNECTION_CLOSED") || message.startsWith("Connection is closed")
                    || message.startsWith("Connection reset") || message.startsWith("Connection refused")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /**
     * The failure a caller of a command is told.
     *
     * @param failure the command's failure, must not be {@code null}
     * @return {@link RedisUnavailableException} for a failure to reach Redis ({@link #isConnectionFailure}),
     *         {@link RedisFullException} for Redis's {@code OOM} reply, else {@code failure} itself
     */
    static Throwable callerFailure(Throwable failure) {
        return isConnectionFailure(failure) && !(failure instanceof RedisUnavailableException)
                ? new RedisUnavailableException("Redis is unavailable: " + Failures.describe(failure), failure)
                : RedisFullException.ifOutOfMemory(failure);
    }

    /**
     * Closes a long-lived connection now, even while a blocking command ({@code BZPOPMIN},
     * {@code XREAD BLOCK}) is pending on it: the socket is closed instead of the connection going back to
     * its pool with the command still pending. Never fails: a failure to close is ignored.
     *
     * <p>The one use of the Vert.x Redis client's internals in the service: its public {@code RedisConnection.close()}
     * returns a pooled connection to its pool (it closes the socket only when the connection is already closed, or
     * tainted by {@code SELECT}, {@code AUTH} or a subscription) and offers no way to ask for the socket to be closed, so
     * a pooled connection is closed through its implementation ({@code PooledRedisConnection}, Vert.x 4.5). Should a
     * later Vert.x drop that class, this fails to compile rather than hand a connection with a blocked command back to
     * its pool.
     *
     * @param connection a connection of the long-lived client ({@code SharedConnection.client()}) or any other, or
     *        {@code null} (nothing to do)
     */
    public static void closeNow(RedisConnection connection) {
        if (connection == null) {
            return;
        }
        if (connection.getDelegate() instanceof PooledRedisConnection pooled) {
            pooled.actual().forceClose();
        } else {
            connection.close().subscribe().with(ignored -> {
            }, ignored -> {
            });
        }
    }
}
