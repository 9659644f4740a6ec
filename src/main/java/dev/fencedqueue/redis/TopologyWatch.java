package dev.fencedqueue.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.fencedqueue.Failures;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import org.jboss.logging.Logger;

/**
 * Keeps the service on the master, and {@link ReplicaTracker} current: about once a {@link #PERIOD}, and soon after a
 * command failed for want of Redis or was refused as {@code READONLY}, it asks the server the shared connection
 * reaches for its {@code run_id} and {@code ROLE}, and with Sentinel asks every Sentinel which master it names
 * ({@link SentinelMasters}, whose {@code +switch-master} notifications trigger a check at once). When the Sentinels name
 * another master than the one the shared connection reaches, every connection of the service moves to it: the
 * long-lived client is renewed ({@link MasterClient#renew}, which closes the blocked connections too) and the shared
 * connection is dropped, so the next command opens one to the new master. Without Sentinel, a shared connection that
 * reaches a replica (a demoted master still answering on the configured address) is dropped, so the next command
 * connects again. Not used on a Redis Cluster, whose client follows the cluster's redirections.
 *
 * <p>The checks run one at a time on the shared connection's context; none blocks.
 */
final class TopologyWatch {

    private static final Logger LOG = Logger.getLogger(TopologyWatch.class);

    /** How often the master is confirmed and its replicas counted. */
    static final Duration PERIOD = Duration.ofSeconds(1);
    /** The shortest time between two checks, however often they are asked for (a Redis outage fails every command). */
    private static final Duration SPACING = Duration.ofMillis(200);

    private final Function<Request, Uni<Response>> send;
    private final Runnable dropShared;
    private final MasterClient client;
    private final SentinelMasters sentinels;
    private final ReplicaTracker tracker;
    private final Context context;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean again;
    /** The address the Sentinels gave for the master whose {@code run_id} the shared connection last reached. */
    private volatile String address;
    private volatile String addressOf = "";
    private volatile boolean stopped;
    private long timer = -1;

    /**
     * @param send sends one command over the shared connection, to ask about the server it reaches; fails as that
     *        connection's commands do
     * @param dropShared drops the shared connection, so that the next command opens a new one (to the master the
     *        long-lived client reaches now); called on {@code context}, must not block
     * @param client the long-lived client, renewed to move its connections
     * @param sentinels the Sentinels of the master set, or {@code null} without Sentinel
     * @param tracker told what the checks find
     * @param context where the checks run and new connections are opened
     */
    TopologyWatch(Function<Request, Uni<Response>> send, Runnable dropShared, MasterClient client,
            SentinelMasters sentinels, ReplicaTracker tracker, Context context) {
        this.send = send;
        this.dropShared = dropShared;
        this.client = client;
        this.sentinels = sentinels;
        this.tracker = tracker;
        this.context = context;
    }

    /** Starts the periodic checks and, with Sentinel, listening for {@code +switch-master}. */
    void start() {
        context.runOnContext(ignored -> {
            if (!stopped) {
                timer = context.owner().setPeriodic(PERIOD.toMillis(), id -> checkSoon());
                checkSoon();
            }
        });
        if (sentinels != null) {
            sentinels.listen(this::checkSoon);
        }
    }

    /**
     * Tells the watch that a command failed: a failure to reach Redis, or Redis refusing a write as {@code READONLY}
     * (the server is a replica now), triggers a check.
     *
     * @param failure the command's failure, must not be {@code null}
     */
    void afterFailure(Throwable failure) {
        if (RedisFailures.isConnectionFailure(failure) || String.valueOf(failure.getMessage()).startsWith("READONLY")
                || failure instanceof NotReplicatedException) {
            checkSoon();
        }
    }

    /** Runs a check now, or right after the one running (at most one every {@link #SPACING}). */
    void checkSoon() {
        if (stopped) {
            return;
        }
        if (!running.compareAndSet(false, true)) {
            again = true;
            return;
        }
        context.runOnContext(ignored -> check().subscribe().with(done -> done(), failure -> {
            LOG.debugf("checking the Redis master failed: %s", Failures.describe(failure));
            done();
        }));
    }

    private void done() {
        context.owner().setTimer(SPACING.toMillis(), ignored -> {
            running.set(false);
            if (again) {
                again = false;
                checkSoon();
            }
        });
    }

    private Uni<Void> check() {
        long asked = now();
        // One after the other: of two commands sent together to a Redis that is down, the failure of the second would
        // come after the first had failed the check, and Mutiny would log it as dropped.
        Uni<ServerState> state = send.apply(Request.cmd(Command.INFO).arg("server"))
                .chain(info -> send.apply(Request.cmd(Command.ROLE)).map(role -> ServerState.of(info, role)))
                .invoke(found -> tracker.observe(found, now()));
        if (sentinels == null) {
            return state.chain(this::standalone);
        }
        return state.onFailure().call(this::unreachable).chain(found -> sentinel(found, asked));
    }

    /**
     * The shared connection's server did not answer (it may be down after a failover): the next connection asks the
     * Sentinels for the master, in their configured order, so the Sentinel that knows of the latest failover goes first.
     */
    private Uni<Void> unreachable(Throwable failure) {
        return sentinels.ask().invoke(view -> {
            if (view.endpoint() != null && !view.endpoint().equals(client.firstSentinel())) {
                context.runOnContext(ignored -> client.renew(view.endpoint()));
            }
        }).replaceWithVoid();
    }

    private Uni<Void> standalone(ServerState state) {
        if (!state.master()) {
            LOG.warnf("the Redis server the service reaches (run_id %s) is a replica: reconnecting", state.runId());
            dropShared.run();
        }
        return Uni.createFrom().voidItem();
    }

    private Uni<Void> sentinel(ServerState state, long asked) {
        return sentinels.ask().invoke(view -> {
            tracker.observe(view, asked);
            if (view.known() && view.runId().equals(state.runId())) {
                address = view.address();
                addressOf = state.runId();
            } else if (elsewhere(view, state)) {
                LOG.infof("the Sentinels name a new master (%s, run_id %s, from %s); moving the service's Redis "
                        + "connections there from run_id %s", view.address(), view.runId().isEmpty() ? "not known yet"
                        : view.runId(), view.endpoint(), state.runId());
                context.runOnContext(ignored -> {
                    client.renew(view.endpoint());
                    dropShared.run();
                });
            }
        }).replaceWithVoid();
    }

    /**
     * @return whether the Sentinels name another master than the one the shared connection reaches: another
     *         {@code run_id}, or, while they do not know the new master's {@code run_id} yet (Sentinel reads it from the
     *         master's {@code INFO} some seconds after a failover), another address than they gave for this one
     */
    private boolean elsewhere(SentinelView view, ServerState state) {
        if (view.known()) {
            return !view.runId().equals(state.runId());
        }
        return view.address() != null && state.runId().equals(addressOf) && !view.address().equals(address);
    }

    /** Stops the checks; a check running ends on its own. */
    void stop() {
        stopped = true;
        context.runOnContext(ignored -> {
            if (timer >= 0) {
                context.owner().cancelTimer(timer);
            }
        });
    }

    private static long now() {
        return System.nanoTime() / 1_000_000;
    }
}
