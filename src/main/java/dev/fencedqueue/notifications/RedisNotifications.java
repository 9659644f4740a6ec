package dev.fencedqueue.notifications;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.bulk.Cursor;
import dev.fencedqueue.bulk.RedisCursors;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * The Redis notification store ({@code fq.bulk.sink=redis}), laid out as {@link RedisNotificationKeys} says.
 * Nothing blocks; every command goes through the shared connection.
 */
public final class RedisNotifications implements NotificationStore {

    private final SharedConnection redis;
    private final RedisNotificationKeys keys;
    private final RedisCursors cursors;
    private final ObjectMapper json;

    public RedisNotifications(SharedConnection redis, RedisNotificationKeys keys, RedisCursors cursors,
            ObjectMapper json) {
        this.redis = redis;
        this.keys = keys;
        this.cursors = cursors;
        this.json = json;
    }

    /**
     * Indexes each subscriber's channel first, then adds them to the channel in one {@code ZADD NX}: a failure in
     * between leaves only an index entry without notifications, and a retry of the request completes it.
     */
    @Override
    public Uni<Integer> add(String channel, List<String> subscriberIds) {
        List<Uni<Response>> index = subscriberIds.stream()
                .map(id -> redis.send(Request.cmd(Command.SADD).arg(keys.channelsOf(id)).arg(channel))).toList();
        Request members = Request.cmd(Command.ZADD).arg(keys.subscribers(channel)).arg("NX");
        subscriberIds.forEach(id -> members.arg(0).arg(id));
        return Uni.join().all(index).andFailFast().chain(() -> redis.send(members)).map(Response::toInteger);
    }

    @Override
    public Uni<Boolean> hasSubscribers(String channel) {
        return redis.send(Request.cmd(Command.EXISTS).arg(keys.subscribers(channel)))
                .map(reply -> reply.toInteger() == 1);
    }

    @Override
    public Uni<List<Notification>> notifications(String subscriberId, int limit) {
        return redis.send(Request.cmd(Command.SMEMBERS).arg(keys.channelsOf(subscriberId))).chain(channels -> {
            if (channels.size() == 0) {
                return Uni.createFrom().item(List.<Notification>of());
            }
            List<Uni<Response>> inboxes = new ArrayList<>();
            channels.forEach(channel -> inboxes.add(redis.send(Request.cmd(Command.LRANGE)
                    .arg(keys.inbox(channel.toString(), subscriberId)).arg(0).arg(limit - 1))));
            return Uni.join().all(inboxes).andFailFast().map(lists -> newest(lists, limit));
        });
    }

    @Override
    public Uni<Optional<Cursor>> committed(String jobId, String channel) {
        return cursors.read(keys.cursor(channel, jobId));
    }

    private List<Notification> newest(List<Response> inboxes, int limit) {
        List<Notification> all = new ArrayList<>();
        for (Response inbox : inboxes) {
            for (Response entry : inbox) {
                all.add(parse(entry.toString()));
            }
        }
        all.sort(Comparator.comparing(Notification::createdAt).reversed());
        return all.size() > limit ? all.subList(0, limit) : all;
    }

    private Notification parse(String entry) {
        try {
            return json.readValue(entry, Notification.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a notification in Redis is not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
