package dev.fencedqueue.events;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Supplier;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Replies;
import dev.fencedqueue.queue.SharedConnection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.operators.multi.processors.UnicastProcessor;
import io.vertx.core.Context;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import org.jboss.logging.Logger;

/**
 * Follows the event streams of every job of one queue that has SSE subscribers on this instance, with one
 * {@code XREAD BLOCK} over all of them on one connection, and fans each entry out to the subscribers of
 * its job. Subscribers therefore never hold a Redis connection of their own. A per-instance wake stream
 * (in the same hash slot) interrupts the blocking read when a job is added to the set. All state lives
 * on one Vert.x context.
 */
final class JobEventTailer {

    private static final Logger LOG = Logger.getLogger(JobEventTailer.class);
    private static final int BATCH = 500;
    private static final Duration BLOCK = Duration.ofSeconds(10);

    /** The subscribers of one job and the id of the last entry delivered to them. */
    private static final class Hub {
        final String jobId;
        final Set<UnicastProcessor<JobEvent>> subscribers = new CopyOnWriteArraySet<>();
        String cursor;
        Uni<Void> ready;

        Hub(String jobId) {
            this.jobId = jobId;
        }
    }

    private final QueueKeys keys;
    private final SharedConnection redis;
    private final JobEventStore store;
    private final Context context;
    private final int bufferSize;
    private final String wakeKey;
    private final Map<String, Hub> hubs = new HashMap<>();
    /** Subscribers attached and not yet gone, for metrics read on other threads. */
    private final AtomicInteger subscriberCount = new AtomicInteger();
    private RedisConnection connection;
    private String wakeCursor = "0-0";
    private boolean reading;
    private boolean closed;

    JobEventTailer(QueueKeys keys, SharedConnection redis, JobEventStore store, Context context, int bufferSize) {
        this.keys = keys;
        this.redis = redis;
        this.store = store;
        this.context = context;
        this.bufferSize = bufferSize;
        this.wakeKey = keys.prefix() + "tailer:" + UUID.randomUUID();
    }

    /**
     * Registers a subscriber for a job. Once the returned {@code Uni} emits, every entry appended to the
     * job's stream after the moment of registration reaches the feed (entries before it are the caller's
     * to read, e.g. with {@link JobEventStore#read}).
     *
     * @param jobId the job id
     * @return the feed
     */
    Uni<LiveFeed> follow(String jobId) {
        return onContext(() -> hubFor(jobId))
                .chain(hub -> hub.ready.chain(() -> onContext(() -> attach(hub))))
                .chain(feed -> feed == null ? follow(jobId) : Uni.createFrom().item(feed));
    }

    private LiveFeed attach(Hub hub) {
        if (hubs.get(hub.jobId) != hub) {
            return null; // its last subscriber left meanwhile: register again
        }
        // Bounded like an ArrayBlockingQueue, but a linked queue holds nothing up front: an idle subscriber costs a
        // few hundred bytes, not an array of fq.events.subscriber-buffer slots (40 KB at the default 10,000).
        UnicastProcessor<JobEvent> processor = UnicastProcessor.create(new LinkedBlockingQueue<>(bufferSize), null);
        if (hub.subscribers.add(processor)) {
            subscriberCount.incrementAndGet();
        }
        return new Feed(hub, processor);
    }

    /** @return the live subscribers of this queue's job streams (thread-safe) */
    int subscribers() {
        return subscriberCount.get();
    }

    /** Stops reading; subscribers' feeds fail so that clients reconnect elsewhere. */
    void close() {
        context.runOnContext(ignored -> {
            closed = true;
            hubs.values().forEach(hub -> hub.subscribers.forEach(p -> p.onError(new IllegalStateException("shutting down"))));
            hubs.clear();
            if (connection != null) {
                connection.close().subscribe().with(v -> {
                }, f -> {
                });
            }
        });
    }

    private Hub hubFor(String jobId) {
        Hub existing = hubs.get(jobId);
        if (existing != null) {
            return existing;
        }
        Hub hub = new Hub(jobId);
        hubs.put(jobId, hub);
        hub.ready = store.lastId(keys, jobId)
                .emitOn(command -> context.runOnContext(ignored -> command.run()))
                .invoke(lastId -> {
                    hub.cursor = lastId;
                    wake();
                })
                .onFailure().invoke(() -> hubs.remove(jobId, hub))
                .replaceWithVoid()
                .memoize().indefinitely();
        return hub;
    }

    private void unregister(Hub hub, UnicastProcessor<JobEvent> processor) {
        context.runOnContext(ignored -> {
            if (hub.subscribers.remove(processor)) {
                subscriberCount.decrementAndGet();
            }
            if (hub.subscribers.isEmpty() && hub.cursor != null) {
                hubs.remove(hub.jobId, hub);
            }
        });
    }

    private void wake() {
        if (!reading) {
            read();
            return;
        }
        redis.send(Request.cmd(Command.XADD).arg(wakeKey).arg("MAXLEN").arg(10).arg("*").arg("wake").arg(1))
                .chain(() -> redis.send(Request.cmd(Command.PEXPIRE).arg(wakeKey).arg(Duration.ofHours(1).toMillis())))
                .subscribe().with(r -> {
                }, f -> LOG.debugf("cannot wake the event tailer of %s: %s", keys.queue(), f.getMessage()));
    }

    private void read() {
        List<Hub> following = hubs.values().stream().filter(h -> h.cursor != null).toList();
        if (closed || following.isEmpty()) {
            reading = false;
            return;
        }
        reading = true;
        Request request = Request.cmd(Command.XREAD).arg("COUNT").arg(BATCH).arg("BLOCK").arg(BLOCK.toMillis())
                .arg("STREAMS").arg(wakeKey);
        following.forEach(hub -> request.arg(keys.events(hub.jobId)));
        request.arg(wakeCursor);
        following.forEach(hub -> request.arg(hub.cursor));
        connection()
                .chain(c -> c.send(request))
                .ifNoItem().after(BLOCK.plus(redis.timeout())).fail()
                .emitOn(command -> context.runOnContext(ignored -> command.run()))
                .subscribe().with(this::dispatch, failure -> {
                    LOG.debugf("event tailer of %s failed, retrying: %s", keys.queue(), failure.getMessage());
                    dropConnection();
                    context.owner().setTimer(500, id -> read());
                });
    }

    private void dispatch(Response reply) {
        Map<String, Hub> byKey = new HashMap<>();
        hubs.values().forEach(hub -> byKey.put(keys.events(hub.jobId), hub));
        Replies.pairs(reply).forEach((key, entries) -> {
            if (key.equals(wakeKey)) {
                List<Response> wakes = Replies.elements(entries);
                if (!wakes.isEmpty()) {
                    wakeCursor = wakes.get(wakes.size() - 1).get(0).toString();
                }
                return;
            }
            Hub hub = byKey.get(key);
            if (hub == null) {
                return;
            }
            for (Response entry : Replies.elements(entries)) {
                JobEvent event = JobEvent.fromEntry(entry);
                hub.cursor = event.id();
                hub.subscribers.forEach(processor -> processor.onNext(event));
            }
        });
        read();
    }

    private Uni<RedisConnection> connection() {
        if (connection != null) {
            return Uni.createFrom().item(connection);
        }
        return redis.client().connect().invoke(c -> connection = c);
    }

    private void dropConnection() {
        if (connection != null) {
            // The bare Vert.x close: the Mutiny wrapper captures the thread context (CDI, transactions), which
            // fails once the application has shut down, when this runs as the connections close.
            connection.getDelegate().close();
            connection = null;
        }
    }

    /** @return a {@code Uni} of {@code action}'s result, computed on the tailer's context */
    private <T> Uni<T> onContext(Supplier<T> action) {
        return Uni.createFrom().item(action).runSubscriptionOn(command -> context.runOnContext(ignored -> command.run()));
    }

    private final class Feed implements LiveFeed {
        private final Hub hub;
        private final UnicastProcessor<JobEvent> processor;

        Feed(Hub hub, UnicastProcessor<JobEvent> processor) {
            this.hub = hub;
            this.processor = processor;
        }

        @Override
        public Multi<JobEvent> events() {
            return processor;
        }

        @Override
        public void close() {
            unregister(hub, processor);
        }
    }
}
