package dev.fencedqueue.notifications;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.bulk.RedisChunkWrites;
import dev.fencedqueue.bulk.RedisChunkedJob;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The notification fan-out into the Redis sink ({@code fq.bulk.sink=redis}): per subscriber, one entry in its
 * notification center (a list) and one in the channel's push outbox (a stream), walking the channel's
 * subscribers in lexicographic order (the cursor is the last subscriber id of the last committed chunk). Keys as
 * {@link RedisNotificationKeys} lays them out.
 */
@ApplicationScoped
public class RedisNotificationFanOut implements RedisChunkedJob<String>, NotificationFanOut {

    /** Fixed width, so that the text sorts in time order. */
    static final DateTimeFormatter CREATED_AT = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSXXX");

    private final BulkConfig config;
    private final RedisNotificationKeys keys;
    private final ObjectMapper json;

    public RedisNotificationFanOut(BulkConfig config, RedisKeysConfig redisConfig, ObjectMapper json) {
        this.config = config;
        this.keys = new RedisNotificationKeys(redisConfig.keyPrefix());
        this.json = json;
    }

    /** @return the key layout of this fan-out's sink */
    public RedisNotificationKeys keys() {
        return keys;
    }

    @Override
    public String queue() {
        return config.queue();
    }

    @Override
    public String cursorKey(JobContext job) {
        return keys.cursor(job.data(FanOut.class).channel(), job.jobId());
    }

    @Override
    public Uni<Long> total(SharedConnection redis, JobContext job) {
        return redis.send(Request.cmd(Command.ZCARD).arg(keys.subscribers(job.data(FanOut.class).channel())))
                .map(Response::toLong);
    }

    @Override
    public Uni<List<String>> read(SharedConnection redis, JobContext job, String cursor, int size) {
        return redis.send(Request.cmd(Command.ZRANGEBYLEX).arg(keys.subscribers(job.data(FanOut.class).channel()))
                .arg(cursor.isEmpty() ? "-" : "(" + cursor).arg("+").arg("LIMIT").arg(0).arg(size)).map(reply -> {
                    List<String> ids = new ArrayList<>(reply.size());
                    reply.forEach(id -> ids.add(id.toString()));
                    return ids;
                });
    }

    @Override
    public void write(RedisChunkWrites writes, JobContext job, List<String> chunk) {
        FanOut fanOut = job.data(FanOut.class);
        String createdAt = CREATED_AT.format(OffsetDateTime.now(ZoneOffset.UTC));
        String entry = text(new Notification(fanOut.channel(), job.jobId(), fanOut.message(), createdAt));
        String payload = fanOut.payload(json, job.jobId());
        String outbox = keys.outbox(fanOut.channel());
        for (String subscriberId : chunk) {
            writes.lpush(keys.inbox(fanOut.channel(), subscriberId), entry);
            writes.xadd(outbox, "subscriberId", subscriberId, "jobId", job.jobId(), "payload", payload);
        }
    }

    private String text(Notification notification) {
        try {
            return json.writeValueAsString(notification);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
