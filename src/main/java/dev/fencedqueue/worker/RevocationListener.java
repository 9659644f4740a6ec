package dev.fencedqueue.worker;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.Reconnect;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Delivers revoke notices to the workers of this instance: the abort and stalled-job scripts publish
 * {@code <jobId>:<fencingToken>} on the queue's {@code revoked} channel, and the worker running that epoch
 * of the job cancels it at once instead of at its next lock renewal. Pub/Sub is at-most-once, so the lock
 * renewal's token check remains the guarantee; this only makes it fast. One subscribed connection per
 * queue (from the long-lived client), resubscribed after a failure, released with the queue's last worker.
 */
@ApplicationScoped
public class RevocationListener {

    private static final Logger LOG = Logger.getLogger(RevocationListener.class);

    private final SharedConnection redis;
    private final Queues queues;
    private final Map<String, Set<Worker>> workers = new ConcurrentHashMap<>();
    private final Map<String, Subscription> subscriptions = new ConcurrentHashMap<>();

    /**
     * @param redis the shared connection, whose client opens the subscribed connections
     * @param queues the registry of queues: each queue's revoked channel
     */
    public RevocationListener(SharedConnection redis, Queues queues) {
        this.redis = redis;
        this.queues = queues;
    }

    /**
     * Starts delivering the notices of the worker's queue to it.
     *
     * @param worker the worker, must not be {@code null}
     */
    public synchronized void register(Worker worker) {
        workers.computeIfAbsent(worker.queue(), q -> new CopyOnWriteArraySet<>()).add(worker);
        subscriptions.computeIfAbsent(worker.queue(), queue -> {
            Subscription subscription = new Subscription(queue);
            subscription.open();
            return subscription;
        });
    }

    /**
     * Stops delivering notices to the worker. When it was the queue's last worker, the queue's subscription
     * ends, which releases its Redis connection.
     *
     * @param worker the worker, must not be {@code null}
     */
    public synchronized void unregister(Worker worker) {
        Set<Worker> set = workers.get(worker.queue());
        if (set != null && set.remove(worker) && set.isEmpty()) {
            workers.remove(worker.queue());
            Subscription subscription = subscriptions.remove(worker.queue());
            if (subscription != null) {
                subscription.close();
            }
        }
    }

    /** @return the queues this instance currently listens to */
    public Set<String> subscribedQueues() {
        return Set.copyOf(subscriptions.keySet());
    }

    @PreDestroy
    synchronized void close() {
        subscriptions.values().forEach(Subscription::close);
        subscriptions.clear();
    }

    private void deliver(String queue, String message) {
        int separator = message.lastIndexOf(':');
        if (separator <= 0) {
            return;
        }
        String jobId = message.substring(0, separator);
        long token;
        try {
            token = Long.parseLong(message.substring(separator + 1));
        } catch (NumberFormatException e) {
            return;
        }
        for (Worker worker : workers.getOrDefault(queue, Set.of())) {
            worker.revoked(jobId, token);
        }
    }

    /** The subscribed connection of one queue. */
    private final class Subscription {
        private final String queue;
        private final String channel;
        private volatile boolean closed;
        private volatile RedisConnection connection;
        private volatile Cancellable pending;

        Subscription(String queue) {
            this.queue = queue;
            this.channel = queues.keys(queue).revokedChannel();
        }

        void open() {
            if (closed) {
                return;
            }
            // Connect and subscribe, retried at the pace of the one reconnect policy until it works or this closes.
            Uni<RedisConnection> attempt = Uni.createFrom().deferred(() -> redis.client().connect())
                    .invoke(c -> c.handler(this::onMessage)) // before SUBSCRIBE, so that no message arrives unhandled
                    .call(c -> c.send(Request.cmd(Command.SUBSCRIBE).arg(channel))
                            .onFailure().call(() -> c.close().onFailure().recoverWithNull()));
            pending = Reconnect.retrying(attempt, failure -> LOG.debugf("revoke channel %s: cannot subscribe (%s), retrying",
                    channel, Failures.describe(failure)))
                    .subscribe().with(c -> {
                        if (closed) {
                            c.close().subscribe().with(v -> {
                            }, f -> {
                            });
                            return;
                        }
                        connection = c;
                        c.exceptionHandler(failure -> lost(c, failure));
                        c.endHandler(() -> lost(c, null));
                    });
        }

        void close() {
            closed = true;
            Cancellable attempt = pending;
            if (attempt != null) {
                attempt.cancel();
            }
            RedisConnection c = connection;
            if (c != null) {
                c.close().subscribe().with(v -> {
                }, f -> {
                });
            }
        }

        private void onMessage(Response message) {
            if (message != null && message.size() >= 3 && "message".equals(message.get(0).toString())
                    && channel.equals(message.get(1).toString())) {
                deliver(queue, message.get(2).toString());
            }
        }

        private void lost(RedisConnection failed, Throwable failure) {
            if (closed || failed != connection) {
                return;
            }
            connection = null;
            LOG.debugf("revoke channel %s lost (%s), resubscribing", channel, failure == null ? "closed" : Failures.describe(failure));
            open();
        }
    }
}
