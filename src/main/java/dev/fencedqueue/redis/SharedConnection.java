package dev.fencedqueue.redis;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import dev.fencedqueue.Failures;
import io.smallrye.mutiny.Uni;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * The Redis connections of this instance. Its non-blocking commands all go over one long-lived
 * connection, pipelined (Redis answers in order), so throughput does not depend on a pool size and the
 * commands of one caller stay in order; after a failure or a timeout that connection is dropped and the
 * next command opens a new one. Blocking commands ({@code BZPOPMIN}, {@code XREAD BLOCK}) hold
 * connections of their own for a long time, so they come from {@link #client()}, a client separate from
 * Quarkus's default one (same options, its own pool): the default pool is never drained by workers or
 * tailers however many there are. A {@link TopologyWatch} keeps every connection on the master (with Sentinel, it
 * moves them after a failover) and counts the master's replicas for {@code fq.redis.wait.replicas=auto}.
 */
@ApplicationScoped
public class SharedConnection {

    private static final Logger LOG = Logger.getLogger(SharedConnection.class);

    private final Redis redis;
    private final Duration timeout;
    private final Context context;
    private final AtomicReference<Slot> current = new AtomicReference<>();
    private volatile Function<RedisConnection, Uni<Void>> preparation = connection -> Uni.createFrom().voidItem();

    private final DurabilityWait durability;
    private final DurableLanes lanes;
    private final ReplicaTracker replicas;
    private final SentinelMasters sentinels;
    private final TopologyWatch watch;

    /** Most connections the long-lived client opens; each worker and each event tailer holds one. */
    private static final int MAX_LONG_LIVED_CONNECTIONS = 1024;

    public SharedConnection(Vertx vertx, Redis defaultClient, RedisOptionsCapture options, RedisKeysConfig config) {
        defaultClient.getDelegate(); // makes sure Quarkus built (and so customized) its default client first
        // The client opens its connections on the context current here (the same one, as Vert.x keeps one
        // context per non-Vert.x thread): remember it, so that workers can run on that event loop.
        this.context = vertx.getDelegate().getOrCreateContext();
        RedisOptions redisOptions = options.defaultOptions()
                .setMaxPoolSize(MAX_LONG_LIVED_CONNECTIONS).setMaxPoolWaiting(MAX_LONG_LIVED_CONNECTIONS);
        MasterClient master = new MasterClient(vertx.getDelegate(), redisOptions);
        this.redis = Redis.newInstance(master);
        this.timeout = config.commandTimeout();
        boolean cluster = redisOptions.getType() == RedisClientType.CLUSTER;
        this.replicas = new ReplicaTracker(config.waitFor().replicas(), cluster);
        this.durability = new DurabilityWait(config, replicas);
        this.lanes = new DurableLanes(redis, context, durability, timeout);
        this.sentinels = redisOptions.getType() == RedisClientType.SENTINEL
                ? new SentinelMasters(vertx, redisOptions, TopologyWatch.PERIOD) : null;
        this.watch = cluster ? null : new TopologyWatch(this::send, this::dropShared, master, sentinels, replicas,
                context);
        if (watch != null) {
            watch.start();
        }
    }

    /**
     * Runs writes that must be durable before they count ({@code fq.redis.wait.replicas}, {@code fq.redis.wait.aof}):
     * on connections of their own (so that the wait holds up no other command), followed by Redis's {@code WAIT}
     * (that many replicas have every write of the connection) or, with {@code wait-aof}, {@code WAITAOF} (the
     * master's append-only file and that many replicas' have it on disk), which return once that holds or after
     * {@code fq.redis.wait.timeout}; concurrent writes share those connections and their waits
     * ({@link DurableLanes}, group commit). When no replica is waited for ({@code wait-replicas} 0, or {@code auto} on a
     * lone Redis) and {@code wait-aof} is off, the writes go over the shared connection and nothing waits.
     *
     * @param writes sends the writes through the function it is given, which sends one command
     * @return what {@code writes} returned; fails with {@link RedisFullException} when Redis refused a write as out of
     *         memory, with {@link NotReplicatedException} when the writes were applied
     *         on the master but did not become durable in time, or Redis refused the wait ({@code WAITAOF} on a Redis
     *         older than 7.2 or without {@code appendonly}), and with {@link RedisUnavailableException} when Redis
     *         cannot be reached
     */
    public Uni<Response> replicated(Function<Function<Request, Uni<Response>>, Uni<Response>> writes) {
        if (durability.none(durability.replicas())) {
            return writes.apply(this::send);
        }
        return lanes.run(writes)
                .onFailure(failure -> !(failure instanceof RedisUnavailableException)
                        && RedisFailures.isConnectionFailure(failure))
                .transform(failure -> new RedisUnavailableException("Redis is unavailable: " + Failures.describe(failure), failure))
                .onFailure().transform(RedisFullException::ifOutOfMemory)
                .onFailure().invoke(this::failed);
    }

    /**
     * @return the client of long-lived connections (same options as Quarkus's default client, its own
     *         pool), for callers that hold a connection for blocking commands; close what you connect
     */
    public Redis client() {
        return redis;
    }

    /**
     * @return the Vert.x context on whose event loop the connections of this instance do their I/O; code
     *         that sends many commands and handles their replies runs there without a thread hop each way
     *         (the workers do)
     */
    public Context context() {
        return context;
    }

    /** @return the command timeout ({@code fq.redis.command-timeout}) */
    public Duration timeout() {
        return timeout;
    }

    /**
     * Sends one command.
     *
     * @param request the command, must not be {@code null}
     * @return the reply ({@code null} for a Redis nil); fails with {@link RedisUnavailableException} when
     *         Redis cannot be reached or does not answer within the command timeout, or with the Redis
     *         error otherwise; each subscription sends the command again, on the connection open at that time
     */
    public Uni<Response> send(Request request) {
        // Each subscription (a retry too) takes the connection open then, not the one that failed.
        return Uni.createFrom().emitter(emitter -> send(request, reply -> {
            if (reply.succeeded()) {
                emitter.complete(reply.result());
            } else {
                emitter.fail(reply.cause());
            }
        }));
    }

    /**
     * Sends one command and tells {@code handler} its outcome, as {@link #send(Request)} does but without a
     * {@code Uni}: for the commands every job sends (its completion and the next jobs' activation).
     *
     * @param request the command, must not be {@code null}
     * @param handler told once, on an event loop: the reply ({@code null} for a Redis nil), or
     *        {@link RedisUnavailableException} when Redis cannot be reached or does not answer within the command
     *        timeout, or the Redis error
     */
    public void send(Request request, Handler<AsyncResult<Response>> handler) {
        Slot slot = current.get();
        RedisConnection open = slot != null ? slot.open : null;
        if (open != null) {
            new SentCommand(this::commandFailed, context.owner(), open, handler).send(request, timeout);
        } else {
            connection().subscribe().with(
                    connection -> new SentCommand(this::commandFailed, context.owner(), connection, handler)
                            .send(request, timeout),
                    failure -> {
                        failed(failure);
                        handler.handle(Future.failedFuture(RedisFailures.callerFailure(failure)));
                    });
        }
    }

    private void commandFailed(RedisConnection connection, Throwable failure) {
        if (RedisFailures.isConnectionFailure(failure)) {
            drop(connection);
        }
        failed(failure);
    }

    private void failed(Throwable failure) {
        if (watch != null) {
            watch.afterFailure(failure);
        }
    }

    /**
     * @return what new jobs wait for now, for the readiness check: {@code replicas} (the replicas a new job waits for,
     *         {@code fq.redis.wait.replicas} or what {@code auto} makes of it) and {@code onlineReplicas} (the replicas
     *         in sync the master had when last asked, about once a second)
     */
    public Map<String, Integer> durability() {
        return Map.of("replicas", durability.replicas(), "onlineReplicas", replicas.onlineReplicas());
    }

    /** Drops the shared connection (closed at once), so that the next command opens a new one. */
    private void dropShared() {
        lanes.dropAll();
        Slot slot = current.getAndSet(null);
        if (slot != null && slot.open != null) {
            RedisFailures.closeNow(slot.open);
        }
    }

    private Uni<RedisConnection> connection() {
        Slot existing = current.get();
        if (existing != null) {
            return existing.connection;
        }
        Slot fresh = new Slot();
        fresh.connection = Uni.createFrom().deferred(redis::connect)
                .call(this::prepare)
                .ifNoItem().after(timeout).failWith(() -> new TimeoutException("no connection within " + timeout))
                .onItem().invoke(connection -> watch(fresh, connection))
                .onFailure().invoke(() -> current.compareAndSet(fresh, null))
                .memoize().indefinitely();
        if (current.compareAndSet(null, fresh)) {
            return fresh.connection;
        }
        return connection();
    }

    /**
     * Sets what runs on every new shared connection before it carries any other command ({@link LuaScripts}
     * loads its scripts there, so that no {@code EVALSHA} meets {@code NOSCRIPT} after a Redis restart or a
     * failover), and runs it at once on the connection already open, if any.
     *
     * @param preparation the preparation, must not be {@code null}; when it fails, the new connection is
     *        closed and the commands waiting for it fail
     */
    public void onConnect(Function<RedisConnection, Uni<Void>> preparation) {
        this.preparation = preparation;
        Slot slot = current.get();
        if (slot != null && slot.open != null) {
            preparation.apply(slot.open).subscribe().with(ignored -> {
            }, failure -> LOG.debugf("preparing the shared Redis connection failed: %s", Failures.describe(failure)));
        }
    }

    private Uni<Void> prepare(RedisConnection connection) {
        return preparation.apply(connection)
                .onFailure().call(() -> connection.close().onFailure().recoverWithNull());
    }

    private void watch(Slot slot, RedisConnection connection) {
        slot.open = connection;
        connection.exceptionHandler(failure -> {
            LOG.debugf("shared Redis connection failed: %s", Failures.describe(failure));
            drop(connection);
        });
        connection.endHandler(() -> drop(connection));
    }

    private void drop(RedisConnection connection) {
        Slot slot = current.get();
        if (slot != null && slot.open == connection && current.compareAndSet(slot, null)) {
            // not back to the pool: a failed connection must not be handed out again
            RedisFailures.closeNow(connection);
        }
    }

    /** One connection attempt and, once it succeeded, the open connection. */
    private static final class Slot {
        Uni<RedisConnection> connection;
        volatile RedisConnection open;
    }

    /** Stops watching the master and closes every connection (the bean's end; also for an instance made by hand). */
    @PreDestroy
    public void close() {
        if (watch != null) {
            watch.stop();
        }
        lanes.dropAll();
        if (sentinels != null) {
            sentinels.close();
        }
        Slot slot = current.getAndSet(null);
        if (slot != null && slot.open != null) {
            slot.open.close().subscribe().with(ignored -> {
            }, ignored -> {
            });
        }
        redis.close();
    }
}
