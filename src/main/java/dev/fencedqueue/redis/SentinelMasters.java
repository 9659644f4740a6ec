package dev.fencedqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

import dev.fencedqueue.Failures;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;
import org.jboss.logging.Logger;

/**
 * The Sentinels of the service's master set ({@code quarkus.redis.hosts} with {@code client-type=sentinel}), asked
 * directly, each on a client of its own: {@link #ask()} asks every one which master it names and believes the one with
 * the greatest {@code config-epoch} (a failover increments it, so a Sentinel that has not heard of the latest one yet
 * cannot outvote the one that ran it), and {@link #listen} follows every one's {@code +switch-master} notifications (the
 * Vert.x Sentinel client listens to one Sentinel, chosen at random, and reads the new master from the first Sentinel
 * that answers, which may not have switched yet).
 */
final class SentinelMasters {

    private static final Logger LOG = Logger.getLogger(SentinelMasters.class);
    private static final String CHANNEL = "+switch-master";

    private final Vertx vertx;
    private final String masterName;
    private final List<String> endpoints;
    private final List<RedisOptions> options = new ArrayList<>();
    private final AtomicReferenceArray<Redis> clients;
    private final Duration timeout;
    private final AtomicReferenceArray<Cancellable> listening;
    private volatile boolean closed;

    /**
     * @param vertx the Vert.x instance
     * @param options the service's Redis options, of type {@code SENTINEL}: their endpoints are the Sentinels
     * @param timeout the longest wait for one Sentinel's answer
     */
    SentinelMasters(Vertx vertx, RedisOptions options, Duration timeout) {
        this.vertx = vertx;
        this.masterName = options.getMasterName();
        this.endpoints = List.copyOf(options.getEndpoints());
        this.timeout = timeout;
        this.clients = new AtomicReferenceArray<>(endpoints.size());
        this.listening = new AtomicReferenceArray<>(endpoints.size());
        for (int i = 0; i < endpoints.size(); i++) {
            this.options.add(new RedisOptions(options).setType(RedisClientType.STANDALONE)
                    .setEndpoints(List.of(endpoints.get(i))).setMaxPoolSize(2).setMaxPoolWaiting(8));
            clients.set(i, Redis.createClient(vertx, this.options.get(i)));
        }
    }

    /** @return the configured Sentinel URIs, in their configured order */
    List<String> endpoints() {
        return endpoints;
    }

    /**
     * Asks every Sentinel {@code SENTINEL MASTER <name>}, each within the timeout; a Sentinel that does not answer in
     * time gets a fresh client (its connection may hang), and is left out of this view.
     *
     * @return their view; never fails
     */
    Uni<SentinelView> ask() {
        List<Uni<Answer>> answers = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            int sentinel = i;
            answers.add(clients.get(i).send(Request.cmd(Command.SENTINEL).arg("MASTER").arg(masterName))
                    .ifNoItem().after(timeout).fail()
                    .map(reply -> Answer.of(sentinel, reply))
                    .onFailure().recoverWithItem(failure -> {
                        LOG.debugf("Sentinel %s did not say which master it names: %s", endpoints.get(sentinel),
                                Failures.describe(failure));
                        renew(sentinel);
                        return null;
                    }));
        }
        return Uni.join().all(answers).andFailFast().map(this::view);
    }

    private SentinelView view(List<Answer> answers) {
        Answer freshest = null;
        boolean failingOver = false;
        int answered = 0;
        for (Answer answer : answers) {
            if (answer == null) {
                continue;
            }
            answered++;
            failingOver |= answer.failingOver();
            if (freshest == null || answer.epoch() > freshest.epoch()) {
                freshest = answer;
            }
        }
        return freshest == null
                ? new SentinelView("", null, null, failingOver, false)
                : new SentinelView(freshest.runId(), freshest.address(), endpoints.get(freshest.sentinel()),
                        failingOver, answered == endpoints.size());
    }

    /**
     * Subscribes to {@code +switch-master} on every Sentinel, on a connection of its own, again after that connection
     * fails or ends (with {@link Reconnect}'s back-off), until {@link #close()}.
     *
     * @param onSwitch runs (on an event loop) for every notification of this master set, and after every
     *        (re)subscription, when one may have been missed; must not block or throw
     */
    void listen(Runnable onSwitch) {
        for (int i = 0; i < endpoints.size(); i++) {
            listen(i, onSwitch);
        }
    }

    private void listen(int sentinel, Runnable onSwitch) {
        if (closed) {
            return;
        }
        Uni<RedisConnection> subscribe = Uni.createFrom().deferred(() -> clients.get(sentinel).connect())
                .ifNoItem().after(timeout).fail()
                .call(connection -> {
                    connection.handler(message -> {
                        if (isSwitch(message)) {
                            onSwitch.run();
                        }
                    });
                    Runnable again = () -> {
                        RedisFailures.closeNow(connection);
                        if (!closed) {
                            vertx.setTimer(Reconnect.FIRST_DELAY.toMillis(), ignored -> listen(sentinel, onSwitch));
                        }
                    };
                    connection.exceptionHandler(failure -> again.run());
                    connection.endHandler(again);
                    return connection.send(Request.cmd(Command.SUBSCRIBE).arg(CHANNEL));
                });
        Cancellable subscription = Reconnect.retrying(subscribe, failure -> LOG.debugf(
                "subscribing to %s on Sentinel %s failed: %s", CHANNEL, endpoints.get(sentinel), Failures.describe(failure)))
                .subscribe().with(connection -> onSwitch.run());
        listening.set(sentinel, subscription);
    }

    private boolean isSwitch(Response message) {
        return message != null && message.size() == 3 && "message".equals(message.get(0).toString())
                && CHANNEL.equals(message.get(1).toString())
                && message.get(2).toString().startsWith(masterName + " ");
    }

    private void renew(int sentinel) {
        Redis old = clients.getAndSet(sentinel, Redis.createClient(vertx, options.get(sentinel)));
        old.close();
    }

    /** Stops listening and closes every client. */
    void close() {
        closed = true;
        for (int i = 0; i < endpoints.size(); i++) {
            Cancellable subscription = listening.get(i);
            if (subscription != null) {
                subscription.cancel();
            }
            clients.get(i).close();
        }
    }

    /** One Sentinel's answer. */
    private record Answer(int sentinel, String runId, String address, long epoch, boolean failingOver) {

        static Answer of(int sentinel, Response reply) {
            Response runId = reply.get("runid");
            Response epoch = reply.get("config-epoch");
            Response flags = reply.get("flags");
            return new Answer(sentinel, runId == null ? "" : runId.toString(), reply.get("ip") + ":" + reply.get("port"),
                    epoch == null ? 0 : epoch.toLong(), flags != null && flags.toString().contains("failover_in_progress"));
        }
    }
}
