package dev.fencedqueue.redis;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * One command sent on one connection of a {@link SharedConnection}: its reply, or its timeout (a Vert.x timer),
 * ends it, whichever comes first, and the handler is told once. Plain callbacks rather than a chain of {@code Uni}
 * stages: every command of every job goes through here, and a cold JVM interprets and compiles what it runs while
 * it serves its first jobs.
 */
final class SentCommand implements Handler<AsyncResult<io.vertx.redis.client.Response>> {

    /** What a command's end does to the connection it was sent on. */
    interface Owner {

        /**
         * Called once a command on {@code connection} failed, before its handler is told.
         *
         * @param connection the connection the command was sent on
         * @param failure the failure: a Redis error, a connection failure, or a {@link TimeoutException}
         */
        void commandFailed(RedisConnection connection, Throwable failure);
    }

    private final Owner owner;
    private final Vertx vertx;
    private final RedisConnection connection;
    private final Handler<AsyncResult<Response>> handler;
    private final AtomicBoolean ended = new AtomicBoolean();
    private long timer;

    /**
     * @param owner told of a failure before the handler
     * @param vertx the Vert.x instance whose timer bounds the wait
     * @param connection the connection to send on
     * @param handler told the reply ({@code null} for a Redis nil) or the failure, once
     */
    SentCommand(Owner owner, Vertx vertx, RedisConnection connection, Handler<AsyncResult<Response>> handler) {
        this.owner = owner;
        this.vertx = vertx;
        this.connection = connection;
        this.handler = handler;
    }

    /**
     * Sends the command.
     *
     * @param request the command
     * @param timeout how long to wait for its reply; then the handler gets a {@link TimeoutException}
     */
    void send(Request request, Duration timeout) {
        timer = vertx.setTimer(timeout.toMillis(), id -> {
            if (ended.compareAndSet(false, true)) {
                fail(new TimeoutException("no reply within " + timeout));
            }
        });
        connection.getDelegate().send(request.getDelegate()).onComplete(this);
    }

    @Override
    public void handle(AsyncResult<io.vertx.redis.client.Response> reply) {
        if (!ended.compareAndSet(false, true)) {
            return; // timed out first
        }
        vertx.cancelTimer(timer);
        if (reply.succeeded()) {
            handler.handle(Future.succeededFuture(reply.result() == null ? null : Response.newInstance(reply.result())));
        } else {
            fail(reply.cause());
        }
    }

    private void fail(Throwable failure) {
        owner.commandFailed(connection, failure);
        handler.handle(Future.failedFuture(RedisFailures.callerFailure(failure)));
    }
}
