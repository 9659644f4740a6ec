package dev.fencedqueue.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import dev.fencedqueue.redis.RedisFailures;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/** Reads a queue's event stream as a {@code Multi}, with {@code XREAD BLOCK} on a connection of its own. */
final class QueueEvents {

    private static final Duration BLOCK = Duration.ofSeconds(5);
    private static final int BATCH = 500;

    private QueueEvents() {
    }

    static Multi<QueueEvent> follow(SharedConnection redis, QueueKeys keys, String afterId) {
        if (afterId == null || afterId.isBlank()) {
            throw new IllegalArgumentException("`afterId` must not be blank");
        }
        return Multi.createFrom().resource(() -> new Reader(redis, keys.events(), afterId),
                reader -> Multi.createBy().repeating().uni(reader::next).indefinitely()
                        .onItem().transformToIterable(events -> events))
                .withFinalizer(Reader::close);
    }

    /** One follower: its connection and its position in the stream. */
    private static final class Reader {
        private final SharedConnection redis;
        private final String stream;
        private final AtomicReference<RedisConnection> connection = new AtomicReference<>();
        private String cursor;

        Reader(SharedConnection redis, String stream, String afterId) {
            this.redis = redis;
            this.stream = stream;
            this.cursor = afterId;
        }

        Uni<List<QueueEvent>> next() {
            if ("$".equals(cursor)) {
                return redis.send(Request.cmd(Command.XREVRANGE).arg(stream).arg("+").arg("-")
                        .arg("COUNT").arg(1)).map(last -> {
                            List<Response> entries = Replies.elements(last);
                            cursor = entries.isEmpty() ? "0-0" : entries.get(0).get(0).toString();
                            return List.<QueueEvent>of();
                        });
            }
            Uni<RedisConnection> open = connection.get() != null ? Uni.createFrom().item(connection.get())
                    : redis.client().connect().invoke(connection::set);
            return open.chain(c -> c.send(Request.cmd(Command.XREAD).arg("COUNT").arg(BATCH).arg("BLOCK")
                    .arg(BLOCK.toMillis()).arg("STREAMS").arg(stream).arg(cursor)))
                    .map(this::parse);
        }

        private List<QueueEvent> parse(Response reply) {
            Response entries = Replies.pairs(reply).get(stream);
            List<QueueEvent> events = Replies.elements(entries).stream().map(QueueEvents::toEvent).toList();
            if (!events.isEmpty()) {
                cursor = events.get(events.size() - 1).id();
            }
            return events;
        }

        Uni<Void> close() {
            RedisFailures.closeNow(connection.getAndSet(null));
            return Uni.createFrom().voidItem();
        }
    }

    private static QueueEvent toEvent(Response entry) {
        Map<String, String> fields = new LinkedHashMap<>(Replies.toStringMap(entry.get(1)));
        String event = fields.remove("event");
        String jobId = fields.remove("jobId");
        return new QueueEvent(entry.get(0).toString(), event, jobId == null ? "" : jobId, fields);
    }
}
