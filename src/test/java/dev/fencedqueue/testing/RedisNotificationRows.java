package dev.fencedqueue.testing;

import java.time.Duration;
import java.util.UUID;
import java.util.function.Function;

import dev.fencedqueue.notifications.RedisNotificationKeys;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * What the notification tests read from (and write into) Redis when {@code fq.bulk.sink=redis}, to check
 * exactly-once delivery: entries per subscriber in the notification center (one list per subscriber) and in the
 * push outbox (a stream), where nothing would hide a duplicate. The counts run as Lua scripts in Redis, so that
 * 100,000 subscribers take one round trip.
 */
public final class RedisNotificationRows implements FanOutRows, AutoCloseable {

    /** Subscribes s-{ARGV[1]} .. s-{ARGV[2]} to the channel and indexes each one's channel (test data only). */
    private static final String SUBSCRIBE = """
            for n = tonumber(ARGV[1]), tonumber(ARGV[2]) do
                local id = string.format('s-%06d', n)
                redis.call('ZADD', KEYS[1], 0, id)
                redis.call('SADD', ARGV[3] .. id .. ARGV[4], ARGV[5])
            end
            return 1
            """;
    /** Deletes every subscriber's inbox of the channel, and its outbox. */
    private static final String CLEAR = """
            for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
                redis.call('UNLINK', ARGV[1] .. id)
            end
            redis.call('UNLINK', KEYS[2])
            return 1
            """;
    /** Counts the job's entries in every subscriber's inbox: {rows, subscribers without exactly one}. */
    private static final String INBOX = """
            local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
            local rows, wrong = 0, 0
            local needle = '"jobId":"' .. ARGV[2] .. '"'
            for _, id in ipairs(ids) do
                local n = 0
                for _, entry in ipairs(redis.call('LRANGE', ARGV[1] .. id, 0, -1)) do
                    if string.find(entry, needle, 1, true) then n = n + 1 end
                end
                rows = rows + n
                if n ~= 1 then wrong = wrong + 1 end
            end
            return {rows, wrong}
            """;
    /** Counts the job's entries in the outbox stream: {rows, subscribers without exactly one}. */
    private static final String OUTBOX = """
            local counts, rows = {}, 0
            for _, entry in ipairs(redis.call('XRANGE', KEYS[2], '-', '+')) do
                local fields = entry[2]
                local subscriber, job
                for i = 1, #fields, 2 do
                    if fields[i] == 'subscriberId' then subscriber = fields[i + 1] end
                    if fields[i] == 'jobId' then job = fields[i + 1] end
                end
                if job == ARGV[1] then
                    counts[subscriber] = (counts[subscriber] or 0) + 1
                    rows = rows + 1
                end
            end
            local wrong = 0
            for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
                if counts[id] ~= 1 then wrong = wrong + 1 end
                counts[id] = nil
            end
            for _ in pairs(counts) do wrong = wrong + 1 end
            return {rows, wrong}
            """;

    private final Function<Request, Response> redis;
    private final RedisNotificationKeys keys;
    private final AutoCloseable resources;

    /**
     * @param redis sends a command and waits for its reply (for example {@link QueueInspector#send})
     * @param keyPrefix the service's {@code fq.redis.key-prefix}
     */
    public RedisNotificationRows(Function<Request, Response> redis, String keyPrefix) {
        this(redis, keyPrefix, () -> {
        });
    }

    private RedisNotificationRows(Function<Request, Response> redis, String keyPrefix, AutoCloseable resources) {
        this.redis = redis;
        this.keys = new RedisNotificationKeys(keyPrefix);
        this.resources = resources;
    }

    /**
     * @param uri the Redis server, {@code redis://host:port}
     * @return rows read through a client of its own (close it)
     */
    public static RedisNotificationRows connect(String uri) {
        Vertx vertx = Vertx.vertx();
        Redis client = Redis.createClient(vertx, uri);
        return new RedisNotificationRows(request -> client.send(request).await().atMost(Duration.ofSeconds(30)), "fq",
                () -> {
                    client.close();
                    vertx.closeAndAwait();
                });
    }

    /**
     * Creates a channel with {@code count} subscribers ({@code s-000000} ... in cursor order), each indexed as
     * the subscribe endpoint does.
     *
     * @return the channel's name, fresh
     */
    @Override
    public String channelWith(int count) {
        String channel = "ch-" + UUID.randomUUID().toString().substring(0, 8);
        String index = keys.channelsOf("ID");
        for (int from = 0; from < count; from += 10_000) {
            redis.apply(Request.cmd(Command.EVAL).arg(SUBSCRIBE).arg(1).arg(keys.subscribers(channel)).arg(from)
                    .arg(Math.min(count, from + 10_000) - 1).arg(index.substring(0, index.indexOf("ID")))
                    .arg(index.substring(index.indexOf("ID") + 2)).arg(channel));
        }
        return channel;
    }

    /**
     * Empties the channel's notification centers and push outbox, keeping its subscribers (between benchmark
     * runs).
     */
    public void clear(String channel) {
        redis.apply(Request.cmd(Command.EVAL).arg(CLEAR).arg(2).arg(keys.subscribers(channel)).arg(keys.outbox(channel))
                .arg(keys.inbox(channel, "")));
    }

    /** @return the job's entries in its subscribers' notification centers */
    @Override
    public long notifications(String channel, String jobId) {
        return inbox(channel, jobId).get(0).toLong();
    }

    /** @return the job's entries in the channel's push outbox */
    @Override
    public long outbox(String channel, String jobId) {
        return outboxCounts(channel, jobId).get(0).toLong();
    }

    @Override
    public long notExactlyOnce(String channel, String jobId) {
        return notificationsNotExactlyOnce(channel, jobId) + outboxNotExactlyOnce(channel, jobId);
    }

    /** @return subscribers of the channel without exactly one notification of the job */
    public long notificationsNotExactlyOnce(String channel, String jobId) {
        return inbox(channel, jobId).get(1).toLong();
    }

    /** @return subscribers of the channel without exactly one outbox entry of the job (or entries of others) */
    public long outboxNotExactlyOnce(String channel, String jobId) {
        return outboxCounts(channel, jobId).get(1).toLong();
    }

    /** @return a field of the job's cursor hash ({@code cursor}, {@code fencingToken} ...), or {@code null} */
    public String cursorField(String channel, String jobId, String field) {
        Response value = redis.apply(Request.cmd(Command.HGET).arg(keys.cursor(channel, jobId)).arg(field));
        return value == null ? null : value.toString();
    }

    private Response inbox(String channel, String jobId) {
        String inboxPrefix = keys.inbox(channel, "");
        return redis.apply(Request.cmd(Command.EVAL).arg(INBOX).arg(1).arg(keys.subscribers(channel))
                .arg(inboxPrefix).arg(jobId));
    }

    private Response outboxCounts(String channel, String jobId) {
        return redis.apply(Request.cmd(Command.EVAL).arg(OUTBOX).arg(2).arg(keys.subscribers(channel))
                .arg(keys.outbox(channel)).arg(jobId));
    }

    @Override
    public void close() throws Exception {
        resources.close();
    }
}
