package dev.fencedqueue.worker;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

import dev.fencedqueue.queue.Queues;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.subscription.Cancellable;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Delivers revoke notices to the workers of this instance: the abort and stalled-job scripts publish
 * {@code <jobId>:<fencingToken>} on the queue's {@code revoked} channel, and the worker running that epoch
 * of the job cancels it at once instead of at its next lock renewal. Pub/Sub is at-most-once, so the lock
 * renewal's token check remains the guarantee; this only makes it fast. One subscription per queue.
 */
@ApplicationScoped
public class RevocationListener {

    private static final Logger LOG = Logger.getLogger(RevocationListener.class);

    private final ReactiveRedisDataSource redis;
    private final Queues queues;
    private final Map<String, Set<Worker>> workers = new ConcurrentHashMap<>();
    private final Map<String, Cancellable> subscriptions = new ConcurrentHashMap<>();

    public RevocationListener(ReactiveRedisDataSource redis, Queues queues) {
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
        subscriptions.computeIfAbsent(worker.queue(), this::subscribe);
    }

    /**
     * Stops delivering notices to the worker. When it was the queue's last worker, the queue's subscription
     * is cancelled, which releases its Redis connection.
     *
     * @param worker the worker, must not be {@code null}
     */
    public synchronized void unregister(Worker worker) {
        Set<Worker> set = workers.get(worker.queue());
        if (set != null && set.remove(worker) && set.isEmpty()) {
            workers.remove(worker.queue());
            Cancellable subscription = subscriptions.remove(worker.queue());
            if (subscription != null) {
                subscription.cancel();
            }
        }
    }

    private Cancellable subscribe(String queue) {
        String channel = queues.keys(queue).revokedChannel();
        return redis.pubsub(String.class).subscribe(channel)
                .onFailure().invoke(failure -> LOG.debugf("revoke channel %s failed, resubscribing: %s", channel,
                        failure.getMessage()))
                .onFailure().retry().withBackOff(Duration.ofMillis(200), Duration.ofSeconds(5)).indefinitely()
                .subscribe().with(message -> deliver(queue, message));
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

    @PreDestroy
    void close() {
        subscriptions.values().forEach(Cancellable::cancel);
    }
}
