package dev.fencedqueue.redis;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import dev.fencedqueue.Failures;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import org.jboss.logging.Logger;

/**
 * Group commit for the writes that must be durable before they count ({@link SharedConnection#replicated}). Redis's
 * {@code WAIT} (and {@code WAITAOF}) confirms every earlier write of its connection, so the writes do not each take a
 * connection and a wait of their own: they go pipelined over a few long-lived connections ({@value #LANES} lanes), and
 * one wait at a time follows them on each lane: the writes sent while a wait is pending share the next one, sent when
 * it returns (group commit); each write counts once a wait sent after it returns. While a wait is pending Redis holds
 * back the lane's later commands, so a write takes a lane with no wait pending when there is one. All the bookkeeping runs on
 * the event-loop thread of the shared connection's context, and what already runs there (the replies, mostly) goes on
 * without a hop; commands are sent as {@link SentCommand}s, bounded by a Vert.x timer, because every durable write
 * passes through here. A lane whose connection fails, or whose command times out, is closed (a wait may be pending on
 * it) and its unconfirmed writes fail, and the next write opens a new one. {@link #dropAll} closes them all when the
 * master moves.
 */
final class DurableLanes {

    private static final Logger LOG = Logger.getLogger(DurableLanes.class);

    /** Lanes: enough that writes rarely queue behind a pending wait, few enough to batch them. */
    static final int LANES = 4;

    private final Redis client;
    private final Context context;
    private final DurabilityWait durability;
    private final Duration timeout;
    private final Lane[] lanes = new Lane[LANES];
    private int next;
    /** The context's event-loop thread, once known: the one thread that touches the lanes. */
    private volatile Thread loop;

    /**
     * @param client the long-lived client the lanes' connections come from
     * @param context where the lanes' bookkeeping runs and their connections are opened
     * @param durability what a wait asks for and how its reply is checked
     * @param timeout the command timeout ({@code fq.redis.command-timeout})
     */
    DurableLanes(Redis client, Context context, DurabilityWait durability, Duration timeout) {
        this.client = client;
        this.context = context;
        this.durability = durability;
        this.timeout = timeout;
        for (int i = 0; i < LANES; i++) {
            lanes[i] = new Lane();
        }
    }

    /**
     * Runs writes on a lane and waits until a wait sent after them returns.
     *
     * @param writes sends the writes through the function it is given, which sends one command on the lane
     * @return what {@code writes} returned; fails with {@link NotReplicatedException} when too few replicas acknowledged
     *         the writes in time (or Redis refused the wait), with a connection failure or {@link TimeoutException}
     *         when the lane failed before they were confirmed, else with the writes' own failure
     */
    Uni<Response> run(Function<Function<Request, Uni<Response>>, Uni<Response>> writes) {
        return Uni.createFrom().emitter(emitter -> onLoop(() -> {
            Lane lane = pick();
            Write write = new Write();
            Uni<Response> written;
            try {
                written = writes.apply(request -> Uni.createFrom().emitter(sent -> onLoop(() -> lane.send(request,
                        write, sent))));
            } catch (RuntimeException e) {
                emitter.fail(e);
                return;
            }
            written.subscribe().with(reply -> onLoop(() -> lane.confirm(write, reply, emitter)), emitter::fail);
        }));
    }

    /** Closes every lane (the master moved); their unconfirmed writes fail. Thread-safe. */
    void dropAll() {
        context.runOnContext(ignored -> {
            for (Lane lane : lanes) {
                lane.drop(new RedisUnavailableException("the Redis master moved before the write was confirmed", null));
            }
        });
    }

    /** Runs {@code action} on the context's event-loop thread: at once when called there, else on the context. */
    private void onLoop(Runnable action) {
        if (Thread.currentThread() == loop) {
            action.run();
        } else {
            context.runOnContext(ignored -> {
                loop = Thread.currentThread();
                action.run();
            });
        }
    }

    /**
     * @return the lane for the next write: one whose wait is about to be sent (it covers this write too at no extra
     *         cost), else an open one with no wait pending (the write is confirmed after one wait), else one yet to be
     *         opened, else the one with the fewest waits pending
     */
    private Lane pick() {
        Lane idle = null;
        Lane closed = null;
        Lane least = null;
        for (int i = 0; i < LANES; i++) {
            Lane lane = lanes[(next + i) % LANES];
            if (lane.waitsInFlight == 0 && lane.waitScheduled) {
                return lane;
            }
            if (lane.waitsInFlight == 0 && lane.connection != null && idle == null) {
                idle = lane;
            } else if (lane.waitsInFlight == 0 && lane.connection == null && closed == null) {
                closed = lane;
            }
            if (least == null || lane.waitsInFlight < least.waitsInFlight) {
                least = lane;
            }
        }
        next = (next + 1) % LANES;
        return idle != null ? idle : closed != null ? closed : least;
    }

    /** One caller's writes: the lane connection they went over and the last one's place in it. */
    private static final class Write {
        RedisConnection connection;
        long sequence;
    }

    /** A write whose reply arrived, waiting for a wait sent after it. */
    private record Waiter(long sequence, Response reply, UniEmitter<? super Response> emitter) {
    }

    /** One long-lived connection and its waits. Confined to the context. */
    private final class Lane {

        private Uni<RedisConnection> connecting;
        private RedisConnection connection;
        /** Writes sent on {@link #connection}, numbered from 1; the last wait's reply covers those up to {@link #covered}. */
        private long sent;
        private long covered;
        private Response lastWait;
        private int lastWaitReplicas;
        /** Set when Redis refused the last wait, instead of {@link #lastWait}. */
        private NotReplicatedException lastRefused;
        private int waitsInFlight;
        private boolean waitScheduled;
        private final Deque<Waiter> waiters = new ArrayDeque<>();

        /** Sends one of a caller's writes on this lane, opening its connection first when there is none. */
        void send(Request request, Write write, UniEmitter<? super Response> emitter) {
            if (connection != null) {
                sendOn(connection, request, write, emitter);
            } else {
                connection().subscribe().with(open -> sendOn(open, request, write, emitter), emitter::fail);
            }
        }

        private void sendOn(RedisConnection open, Request request, Write write, UniEmitter<? super Response> emitter) {
            if (open != connection) {
                emitter.fail(new RedisUnavailableException("the connection for durable writes was closed", null));
                return;
            }
            write.connection = open;
            write.sequence = ++sent;
            scheduleWait();
            command(open, reply -> {
                if (reply.succeeded()) {
                    emitter.complete(reply.result());
                } else {
                    emitter.fail(reply.cause());
                }
            }).send(request, timeout);
        }

        /**
         * @return a command on {@code open} whose failure to reach Redis (or time-out) closes this lane, and whose
         *         outcome {@code handler} is told on the event loop
         */
        private SentCommand command(RedisConnection open, Handler<AsyncResult<Response>> handler) {
            return new SentCommand((connection, failure) -> {
                if (RedisFailures.isConnectionFailure(failure)) {
                    onLoop(() -> drop(connection, failure));
                }
            }, context.owner(), open, reply -> onLoop(() -> handler.handle(reply)));
        }

        private Uni<RedisConnection> connection() {
            if (connecting == null) {
                Uni<RedisConnection> attempt = Uni.createFrom().deferred(client::connect)
                        .ifNoItem().after(timeout).failWith(() -> new TimeoutException("no connection within " + timeout))
                        .emitOn(command -> context.runOnContext(x -> command.run()))
                        .invoke(this::opened)
                        .onFailure().invoke(failure -> connecting = null)
                        .memoize().indefinitely();
                connecting = attempt;
            }
            return connecting;
        }

        private void opened(RedisConnection open) {
            connection = open;
            open.exceptionHandler(failure -> context.runOnContext(x -> drop(open, failure)));
            open.endHandler(() -> context.runOnContext(x -> drop(open,
                    new RedisUnavailableException("the connection for durable writes closed", null))));
        }

        /**
         * Makes sure a wait follows the write just sent: at the end of this turn of the event loop when none is pending
         * (so that the writes of this turn share it), else once the pending one returned ({@link #waited}), since Redis
         * holds back the lane's later commands until then anyway: the writes sent meanwhile all share that next wait.
         */
        private void scheduleWait() {
            if (!waitScheduled && waitsInFlight == 0) {
                waitScheduled = true;
                context.runOnContext(x -> sendWait()); // after this turn's writes
            }
        }

        private void sendWait() {
            waitScheduled = false;
            RedisConnection open = connection;
            if (open == null) {
                return;
            }
            long covers = sent;
            int replicas = durability.replicas();
            waitsInFlight++;
            command(open, reply -> {
                if (reply.succeeded()) {
                    waited(open, covers, replicas, reply.result());
                } else {
                    waitFailed(open, covers, reply.cause());
                }
            }).send(durability.request(replicas), durability.timeout().plus(timeout));
        }

        private void waited(RedisConnection open, long covers, int replicas, Response reply) {
            if (open != connection) {
                return; // dropped meanwhile: its waiters failed then
            }
            waitsInFlight--;
            covered = covers;
            lastWait = reply;
            lastWaitReplicas = replicas;
            lastRefused = null;
            while (!waiters.isEmpty() && waiters.peekFirst().sequence() <= covers) {
                Waiter waiter = waiters.pollFirst();
                settle(waiter.reply(), waiter.emitter());
            }
            if (sent > covers) {
                scheduleWait();
            }
        }

        private void waitFailed(RedisConnection open, long covers, Throwable failure) {
            if (open != connection) {
                return;
            }
            if (RedisFailures.isConnectionFailure(failure)) {
                drop(open, failure);
                return;
            }
            // Redis refused the wait (WAITAOF on a Redis older than 7.2, or without appendonly): the writes it follows
            // were applied but are not durable.
            waitsInFlight--;
            covered = covers;
            NotReplicatedException refused = durability.refused(failure);
            lastRefused = refused;
            while (!waiters.isEmpty() && waiters.peekFirst().sequence() <= covers) {
                waiters.pollFirst().emitter().fail(refused);
            }
            if (sent > covers) {
                scheduleWait();
            }
        }

        /** The writes' reply arrived: they count once a wait sent after them returned, perhaps already. */
        void confirm(Write write, Response reply, UniEmitter<? super Response> emitter) {
            if (write.connection == null) {
                emitter.complete(reply); // nothing was written
            } else if (write.connection != connection) {
                emitter.fail(new RedisUnavailableException("the connection for durable writes failed before the "
                        + "write was confirmed", null));
            } else if (write.sequence <= covered && lastRefused != null) {
                emitter.fail(lastRefused);
            } else if (write.sequence <= covered) {
                settle(reply, emitter);
            } else {
                waiters.addLast(new Waiter(write.sequence, reply, emitter));
            }
        }

        private void settle(Response reply, UniEmitter<? super Response> emitter) {
            try {
                durability.check(lastWait, lastWaitReplicas);
            } catch (NotReplicatedException notReplicated) {
                emitter.fail(notReplicated);
                return;
            }
            emitter.complete(reply);
        }

        void drop(Throwable failure) {
            if (connection != null) {
                drop(connection, failure);
            }
        }

        private void drop(RedisConnection open, Throwable failure) {
            if (open != connection) {
                return;
            }
            LOG.debugf("a connection for durable writes failed: %s", Failures.describe(failure));
            connection = null;
            connecting = null;
            waitsInFlight = 0;
            waitScheduled = false;
            covered = sent;
            RedisFailures.closeNow(open);
            while (!waiters.isEmpty()) {
                waiters.pollFirst().emitter().fail(failure);
            }
        }
    }
}
