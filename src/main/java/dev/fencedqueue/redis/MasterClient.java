package dev.fencedqueue.redis;

import java.util.ArrayList;
import java.util.List;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * The client of the service's long-lived connections, which can be moved to a new master as a whole: {@link #renew}
 * replaces the Vert.x client it delegates to with a new one and closes the old one, which closes every connection the
 * old one opened, the blocked ones included ({@code BZPOPMIN}, {@code XREAD BLOCK}, subscriptions): their commands fail
 * with a closed connection, and their owners reconnect, through this client, to the new master. Callers keep this one
 * client; nothing else of theirs changes.
 *
 * <p>With Sentinel, the clients it makes do not follow {@code +switch-master} themselves ({@code auto-failover} off):
 * the Vert.x client would swap the socket under each connection, leaving the handlers its owner set on the old socket
 * and a blocked command pending there, so a switch is followed by renewing the whole client instead
 * ({@link TopologyWatch}). Every other option is Quarkus's ({@link RedisOptionsCapture}).
 */
final class MasterClient implements Redis {

    private final Vertx vertx;
    private final RedisOptions options;
    private volatile Redis current;
    private volatile String firstSentinel;

    /**
     * @param vertx the Vert.x instance; call from the context that the connections should use (the client opens them
     *        on the context current when it is made)
     * @param options the client's options
     */
    MasterClient(Vertx vertx, RedisOptions options) {
        this.vertx = vertx;
        this.options = options.getType() == RedisClientType.SENTINEL ? options.setAutoFailover(false) : options;
        this.current = Redis.createClient(vertx, this.options);
        this.firstSentinel = this.options.getEndpoint();
    }

    /** @return the endpoint the client tries first: with Sentinel, the Sentinel it asks first for the master */
    String firstSentinel() {
        return firstSentinel;
    }

    /**
     * Replaces the client with a new one and closes the old one (and so every connection it opened). Call it on the
     * context the connections should use.
     *
     * @param firstSentinel with Sentinel, the Sentinel URI to ask first for the master (the one that named the new
     *        master), or {@code null} to keep the configured order
     */
    void renew(String firstSentinel) {
        RedisOptions next = new RedisOptions(options);
        if (firstSentinel != null && options.getEndpoints().contains(firstSentinel)) {
            List<String> endpoints = new ArrayList<>(options.getEndpoints());
            endpoints.remove(firstSentinel);
            endpoints.add(0, firstSentinel);
            next.setEndpoints(endpoints);
        }
        firstSentinel = next.getEndpoint();
        Redis old = current;
        current = Redis.createClient(vertx, next);
        old.close();
    }

    @Override
    public Future<RedisConnection> connect() {
        return current.connect();
    }

    @Override
    public void close() {
        current.close();
    }

    @Override
    public Future<Response> send(Request command) {
        return current.send(command);
    }

    @Override
    public Future<List<Response>> batch(List<Request> commands) {
        return current.batch(commands);
    }
}
