package dev.fencedqueue.sse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.events.EntryReader;
import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.Reconnect;
import dev.fencedqueue.redis.RedisUnavailableException;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.core.Context;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import org.jboss.logging.Logger;

/**
 * Follows the event streams of every job of one queue that has SSE subscribers on this instance, with one
 * {@code XREAD BLOCK} over all of them on one connection, and fans each entry out to the subscribers of its job.
 * Subscribers therefore never hold a Redis connection of their own. A per-instance wake stream (in the same hash
 * slot) interrupts the blocking read when a job is added to the set. All state lives on one Vert.x context.
 *
 * <p>Each entry is framed once ({@link FramedEvent}); a job's subscribers are grouped by the event loop of their
 * connection, and each group gets one task per read with the new entries, which writes the same bytes to each of its
 * subscribers on their own event loop.
 */
final class JobEventTailer {

    private static final Logger LOG = Logger.getLogger(JobEventTailer.class);
    private static final int BATCH = 500;
    private static final Duration BLOCK = Duration.ofSeconds(10);
    private static final TailSubscriber[] NONE = new TailSubscriber[0];

    /** The subscribers of one job, by event loop, and the id of the last entry handed to them. */
    private static final class Hub {
        final String jobId;
        /** The job's event stream key. */
        final String key;
        final Map<Context, Group> groups = new HashMap<>();
        /** The workers of the job's runs, by fencing token, as its answer deltas are read ({@link EntryReader}). */
        final Map<Long, String> workers = new ConcurrentHashMap<>();
        int size;
        String cursor;
        Uni<Void> ready;

        Hub(String jobId, String key) {
            this.jobId = jobId;
            this.key = key;
        }
    }

    /** The subscribers of a job on one event loop; {@code members} is replaced, never modified, so tasks may hold it. */
    private static final class Group {
        final Context context;
        TailSubscriber[] members = NONE;

        Group(Context context) {
            this.context = context;
        }

        /** Runs {@code action} on each member, on their event loop. */
        void each(Consumer<TailSubscriber> action) {
            TailSubscriber[] snapshot = members;
            context.runOnContext(ignored -> {
                for (TailSubscriber subscriber : snapshot) {
                    try {
                        action.accept(subscriber);
                    } catch (RuntimeException e) {
                        LOG.warn("an SSE subscriber failed; disconnecting it", e);
                        subscriber.disconnect();
                    }
                }
            });
        }
    }

    private final QueueKeys keys;
    private final SharedConnection redis;
    private final JobEventStore store;
    private final Context context;
    private final ObjectMapper json;
    private final String wakeKey;
    private final Map<String, Hub> hubs = new HashMap<>();
    /** Subscribers attached and not yet gone, for metrics read on other threads. */
    private final AtomicInteger subscriberCount = new AtomicInteger();
    private RedisConnection connection;
    private String wakeCursor = "0-0";
    private boolean reading;
    private boolean closed;
    /** The read in flight, retried until it succeeds; cancelled on close. */
    private Cancellable reader;

    JobEventTailer(QueueKeys keys, SharedConnection redis, JobEventStore store, Context context, ObjectMapper json) {
        this.keys = keys;
        this.json = json;
        this.redis = redis;
        this.store = store;
        this.context = context;
        this.wakeKey = keys.prefix() + "tailer:" + UUID.randomUUID();
    }

    /**
     * Registers a subscriber for a job. Once the returned {@code Uni} emits, every entry appended to the job's stream
     * after the moment of registration is handed to the subscriber (entries before it are the caller's to read, e.g.
     * with {@link JobEventStore#read}).
     *
     * @param jobId the job id
     * @param subscriber the subscriber
     * @return the action that unregisters the subscriber (any thread); fails with {@link RedisUnavailableException}
     *         when the tailer has closed (the service is shutting down)
     */
    Uni<Runnable> follow(String jobId, TailSubscriber subscriber) {
        return onContext(() -> hubFor(jobId))
                .chain(hub -> hub.ready.chain(() -> onContext(() -> attach(hub, subscriber))))
                .chain(unregister -> unregister == null ? follow(jobId, subscriber) : Uni.createFrom().item(unregister));
    }

    private Runnable attach(Hub hub, TailSubscriber subscriber) {
        if (closed) {
            throw new RedisUnavailableException("the service is shutting down", null);
        }
        if (hubs.get(hub.jobId) != hub) {
            return null; // its last subscriber left meanwhile: register again
        }
        Group group = hub.groups.computeIfAbsent(subscriber.context(), Group::new);
        TailSubscriber[] members = Arrays.copyOf(group.members, group.members.length + 1);
        members[members.length - 1] = subscriber;
        group.members = members;
        hub.size++;
        subscriberCount.incrementAndGet();
        return () -> context.runOnContext(ignored -> detach(hub, subscriber));
    }

    private void detach(Hub hub, TailSubscriber subscriber) {
        Group group = hub.groups.get(subscriber.context());
        if (group == null) {
            return;
        }
        List<TailSubscriber> rest = new ArrayList<>(Arrays.asList(group.members));
        if (!rest.remove(subscriber)) {
            return;
        }
        group.members = rest.toArray(NONE);
        if (rest.isEmpty()) {
            hub.groups.remove(subscriber.context());
        }
        hub.size--;
        subscriberCount.decrementAndGet();
        if (hub.size == 0 && hub.cursor != null) {
            hubs.remove(hub.jobId, hub);
        }
    }

    /** @return the live subscribers of this queue's job streams (thread-safe) */
    int subscribers() {
        return subscriberCount.get();
    }

    /** Sends a keep-alive comment to every subscriber that has had no write for {@code idle}. */
    void keepAlive(Duration idle) {
        context.runOnContext(ignored -> hubs.values().forEach(hub -> hub.groups.values().forEach(
                group -> group.each(subscriber -> subscriber.keepAlive(System.nanoTime(), idle.toNanos())))));
    }

    /** Stops reading and disconnects the subscribers, so that their clients reconnect elsewhere. */
    void close() {
        context.runOnContext(ignored -> {
            closed = true;
            if (reader != null) {
                reader.cancel();
            }
            hubs.values().forEach(hub -> hub.groups.values().forEach(group -> group.each(TailSubscriber::disconnect)));
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
        Hub hub = new Hub(jobId, keys.events(jobId));
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

    private void wake() {
        if (!reading) {
            read();
            return;
        }
        redis.send(Request.cmd(Command.XADD).arg(wakeKey).arg("MAXLEN").arg(10).arg("*").arg("wake").arg(1))
                .chain(() -> redis.send(Request.cmd(Command.PEXPIRE).arg(wakeKey).arg(Duration.ofHours(1).toMillis())))
                .subscribe().with(r -> {
                }, f -> LOG.debugf("cannot wake the event tailer of %s: %s", keys.queue(), Failures.describe(f)));
    }

    private void read() {
        if (closed || hubs.values().stream().noneMatch(h -> h.cursor != null)) {
            reading = false;
            return;
        }
        reading = true;
        // Each try reads from where the subscribers are then (built on the tailer's context); a failed try drops its
        // connection and the next one opens another, at the pace of the one reconnect policy.
        Uni<Read> attempt = Uni.createFrom().deferred(() -> {
            Request request = xread();
            if (request == null) {
                return Uni.createFrom().nullItem();
            }
            Map<String, Hub> byKey = new HashMap<>();
            hubs.values().forEach(hub -> byKey.put(hub.key, hub));
            return connection().chain(c -> c.send(request)).ifNoItem().after(BLOCK.plus(redis.timeout())).fail()
                    .chain(reply -> events(reply, byKey));
        }).runSubscriptionOn(command -> context.runOnContext(ignored -> command.run()));
        reader = Reconnect.retrying(attempt, failure -> {
            LOG.debugf("event tailer of %s failed, retrying: %s", keys.queue(), Failures.describe(failure));
            context.runOnContext(ignored -> dropConnection());
        })
                .emitOn(command -> context.runOnContext(ignored -> command.run()))
                .subscribe().with(this::dispatch);
    }

    /** @return the {@code XREAD} of every followed job's stream after its cursor, or {@code null} when none is followed */
    private Request xread() {
        List<Hub> following = hubs.values().stream().filter(h -> h.cursor != null).toList();
        if (closed || following.isEmpty()) {
            return null;
        }
        Request request = Request.cmd(Command.XREAD).arg("COUNT").arg(BATCH).arg("BLOCK").arg(BLOCK.toMillis())
                .arg("STREAMS").arg(wakeKey);
        following.forEach(hub -> request.arg(hub.key));
        request.arg(wakeCursor);
        following.forEach(hub -> request.arg(hub.cursor));
        return request;
    }

    /** The outcome of one {@code XREAD}: the wake stream's new cursor, and the new events by job stream key. */
    private record Read(String wakeCursor, Map<String, List<JobEvent>> events) {
    }

    /** @return the reply's entries read back as events ({@link EntryReader}), for the hubs of {@code byKey} */
    private Uni<Read> events(Response reply, Map<String, Hub> byKey) {
        String wake = null;
        Map<String, List<JobEvent>> events = new LinkedHashMap<>();
        List<Uni<Void>> reads = new ArrayList<>();
        for (Map.Entry<String, Response> stream : Replies.pairs(reply).entrySet()) {
            List<Response> entries = Replies.elements(stream.getValue());
            Hub hub = byKey.get(stream.getKey());
            if (stream.getKey().equals(wakeKey)) {
                wake = entries.isEmpty() ? null : entries.get(entries.size() - 1).get(0).toString();
            } else if (hub != null && !entries.isEmpty()) {
                reads.add(EntryReader.events(redis, keys, hub.jobId, entries, hub.workers, json)
                        .invoke(read -> events.put(stream.getKey(), read)).replaceWithVoid());
            }
        }
        String wakeCursor = wake;
        Uni<Void> all = reads.isEmpty() ? Uni.createFrom().voidItem() : Uni.join().all(reads).andFailFast()
                .replaceWithVoid();
        return all.map(ignored -> new Read(wakeCursor, events));
    }

    private void dispatch(Read read) {
        if (read == null) {
            read();
            return;
        }
        if (read.wakeCursor() != null) {
            wakeCursor = read.wakeCursor();
        }
        Map<String, Hub> byKey = new HashMap<>();
        hubs.values().forEach(hub -> byKey.put(hub.key, hub));
        read.events().forEach((key, events) -> {
            Hub hub = byKey.get(key);
            if (hub == null) {
                return;
            }
            List<FramedEvent> batch = new ArrayList<>(events.size());
            for (JobEvent event : events) {
                batch.add(FramedEvent.of(event));
                hub.cursor = event.id();
            }
            hub.groups.values().forEach(group -> group.each(subscriber -> subscriber.deliver(batch)));
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
}
