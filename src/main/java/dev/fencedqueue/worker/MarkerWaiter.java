package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

import dev.fencedqueue.Failures;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import org.jboss.logging.Logger;

/**
 * Blocks on a queue's marker set with {@code BZPOPMIN} on a connection of its own, so that an idle
 * worker wakes as soon as a job is added (member {@code 0}) or learns the due time of the earliest delayed
 * job (member {@code delayed}, score = due time in ms), without polling. Not thread-safe: used from the
 * worker's context only.
 */
final class MarkerWaiter {

    private static final Logger LOG = Logger.getLogger(MarkerWaiter.class);

    /** A popped marker: {@code member} is {@code 0} or {@code delayed}; {@code score} is 0 or a due time (ms). */
    record Marker(String member, long score) {
    }

    private final Redis client;
    private final String markerKey;
    private final String connectionName;
    private final Duration blockTimeout;
    private final Duration guardTimeout;
    private RedisConnection connection;
    private boolean waiting;
    private boolean closed;

    /**
     * @param connectionName the name the blocking connection gets ({@code CLIENT SETNAME}), so that
     *        {@code CLIENT LIST} shows which worker holds it
     */
    MarkerWaiter(Redis client, String markerKey, String connectionName, Duration blockTimeout, Duration commandTimeout) {
        this.client = client;
        this.markerKey = markerKey;
        this.connectionName = connectionName;
        this.blockTimeout = blockTimeout;
        this.guardTimeout = blockTimeout.plus(commandTimeout);
    }

    /**
     * @return the name of a worker's blocking connection in {@code CLIENT LIST}: {@code fq:<queue>:worker:<id>}
     *         (white space, which Redis does not accept in names, replaced by {@code _})
     */
    public static String connectionName(String queue, WorkerOptions options) {
        return ("fq:" + queue + ":worker:" + options.workerId()).replaceAll("\\s", "_");
    }

    /** @return whether a {@code BZPOPMIN} is in flight */
    boolean isWaiting() {
        return waiting;
    }

    /**
     * Blocks until a marker is popped or the block timeout passes.
     *
     * @return the popped marker, or {@code null} when the timeout passed
     */
    Uni<Marker> next() {
        waiting = true;
        String seconds = String.format(Locale.ROOT, "%.3f", blockTimeout.toMillis() / 1000.0);
        return connection()
                .chain(c -> c.send(Request.cmd(Command.BZPOPMIN).arg(markerKey).arg(seconds)))
                .ifNoItem().after(guardTimeout).failWith(() -> new TimeoutException(
                        "no reply to the blocking pop within " + guardTimeout.toMillis() + " ms"))
                .map(MarkerWaiter::toMarker)
                .onItemOrFailure().call((marker, failure) -> {
                    waiting = false;
                    if (failure != null) {
                        LOG.debugf("blocking pop on %s failed: %s", markerKey, Failures.describe(failure));
                        return release();
                    }
                    if (closed) {
                        return putBack(marker).eventually(this::release);
                    }
                    return Uni.createFrom().voidItem();
                });
    }

    /** Stops waiting: the connection is released now, or as soon as the pending pop returns (its marker is put back). */
    Uni<Void> close() {
        closed = true;
        return waiting ? Uni.createFrom().voidItem() : release();
    }

    private Uni<RedisConnection> connection() {
        if (connection != null) {
            return Uni.createFrom().item(connection);
        }
        return client.connect().call(c -> c.send(Request.cmd(Command.CLIENT).arg("SETNAME").arg(connectionName)))
                .invoke(c -> connection = c);
    }

    /**
     * Puts a popped marker back so that another worker wakes up for it.
     *
     * @param marker the marker, or {@code null} (nothing to do)
     * @return completes when done; failures are ignored
     */
    Uni<Void> putBack(Marker marker) {
        if (marker == null || connection == null) {
            return Uni.createFrom().voidItem();
        }
        Request request = "delayed".equals(marker.member())
                ? Request.cmd(Command.ZADD).arg(markerKey).arg("LT").arg(marker.score()).arg(marker.member())
                : Request.cmd(Command.ZADD).arg(markerKey).arg(marker.score()).arg(marker.member());
        return connection.send(request).replaceWithVoid().onFailure().recoverWithNull().replaceWithVoid();
    }

    private Uni<Void> release() {
        RedisConnection held = connection;
        connection = null;
        return held == null ? Uni.createFrom().voidItem() : held.close().onFailure().recoverWithNull().replaceWithVoid();
    }

    private static Marker toMarker(Response reply) {
        if (reply == null || reply.size() < 3) {
            return null;
        }
        return new Marker(reply.get(1).toString(), (long) Double.parseDouble(reply.get(2).toString()));
    }
}
