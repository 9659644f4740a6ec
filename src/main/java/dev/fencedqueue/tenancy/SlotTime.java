package dev.fencedqueue.tenancy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.queue.TenantIds;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The slot time each tenant's jobs held in each queue (ms a job held a worker slot, running work included), fleet-wide,
 * in buckets of {@value #BUCKET_MILLIS} ms: the share of slots a tenant had in the last minute, which the tenants' views
 * show beside the shares its weight asks for. Workers count their jobs' slot time in memory and add it here every
 * bucket or so ({@code TenantSlotTime} in the worker package), into the hash of the bucket their clock is in, one for the
 * fleet: {@code <prefix>:tenant-slots:<bucket>}, {@code <queue>:<tenant id>} -> ms, and {@code <queue>:}{@value #ALL}
 * -> every tenant's ms (a queue name holds no {@code :}), which expires once no window reads it any more. It is outside
 * the queues' hash slots and keys, so that a queue obliterated while its workers still run gets no key back. Shares are
 * slot time, whatever the queue's cost unit: what fair dispatch evens out is the cost (LLM tokens for research), what
 * this shows is who held the workers.
 */
@ApplicationScoped
public class SlotTime {

    /** The length of one bucket, ms. */
    public static final long BUCKET_MILLIS = 10_000;

    /** What stands for every tenant in a bucket's fields: not a tenant id ({@link TenantIds#RULE}). */
    public static final String ALL = "*";

    /** How many whole buckets before the current one a share reads: with it, 60 to 70 s. */
    static final int WINDOW_BUCKETS = 6;

    /** How long a bucket's hash lives after its last write: past the last window that reads it. */
    static final Duration KEEP = Duration.ofMillis((WINDOW_BUCKETS + 2) * BUCKET_MILLIS);

    private final SharedConnection redis;
    private final String keyPrefix;

    public SlotTime(SharedConnection redis, RedisKeysConfig config) {
        this.redis = redis;
        this.keyPrefix = config.keyPrefix();
    }

    /**
     * Adds slot time to the bucket that holds {@code nowMillis}.
     *
     * @param queue the queue's name
     * @param millisByTenant slot time by tenant id ({@code default} included), ms; entries of 0 are skipped
     * @param nowMillis the time it was counted up to, ms since the epoch
     * @return completes once written; fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is
     *         unreachable (the time is then lost: a share, not a bill)
     */
    public Uni<Void> add(String queue, Map<String, Long> millisByTenant, long nowMillis) {
        long total = millisByTenant.values().stream().mapToLong(Long::longValue).sum();
        if (total <= 0) {
            return Uni.createFrom().voidItem();
        }
        String key = bucketKey(nowMillis / BUCKET_MILLIS);
        List<Uni<Response>> writes = new ArrayList<>();
        millisByTenant.forEach((tenant, millis) -> {
            if (millis > 0) {
                writes.add(redis.send(Request.cmd(Command.HINCRBY).arg(key).arg(field(queue, tenant)).arg(millis)));
            }
        });
        writes.add(redis.send(Request.cmd(Command.HINCRBY).arg(key).arg(field(queue, ALL)).arg(total)));
        writes.add(redis.send(Request.cmd(Command.PEXPIRE).arg(key).arg(KEEP.toMillis())));
        return Uni.join().all(writes).andFailFast().replaceWithVoid();
    }

    /**
     * @param queue the queue's name
     * @param tenant a tenant id
     * @param nowMillis now, ms since the epoch
     * @return the tenant's share of the slot time every tenant's jobs of the queue held in the last minute (the bucket
     *         holding {@code nowMillis} and the {@value #WINDOW_BUCKETS} before it: 60 to 70 s), 0 to 1; {@code null} when no
     *         job of the queue held a slot then; fails as {@link #add} does
     */
    public Uni<Double> share(String queue, String tenant, long nowMillis) {
        long current = nowMillis / BUCKET_MILLIS;
        List<Uni<Response>> reads = new ArrayList<>();
        for (long bucket = current - WINDOW_BUCKETS; bucket <= current; bucket++) {
            reads.add(redis.send(Request.cmd(Command.HMGET).arg(bucketKey(bucket)).arg(field(queue, tenant))
                    .arg(field(queue, ALL))));
        }
        return Uni.join().all(reads).andFailFast().map(buckets -> {
            long own = 0;
            long all = 0;
            for (Response bucket : buckets) {
                own += bucket.get(0) == null ? 0 : bucket.get(0).toLong();
                all += bucket.get(1) == null ? 0 : bucket.get(1).toLong();
            }
            return all == 0 ? null : Math.min(1.0, (double) own / all);
        });
    }

    /** @return the hash of one bucket, ms since the epoch divided by {@link #BUCKET_MILLIS} */
    String bucketKey(long bucket) {
        return keyPrefix + ":tenant-slots:" + bucket;
    }

    private static String field(String queue, String tenant) {
        return queue + ":" + tenant;
    }
}
