package dev.fencedqueue.scheduler;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;

/**
 * Reads what a job scheduler's queue stores of it, and the Redis clock its ticks are computed by: the reads that
 * {@link JobSchedulers} and {@link DueTicks} share. Each read fails with
 * {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable.
 */
final class StoredSchedulers {

    private final Queues queues;
    private final SharedConnection redis;
    private final ObjectMapper json;

    StoredSchedulers(Queues queues, SharedConnection redis, ObjectMapper json) {
        this.queues = queues;
        this.redis = redis;
        this.json = json;
    }

    /**
     * @param queue the scheduler's queue
     * @param id its id
     * @return the scheduler as its queue stores it ({@link JobSchedulerJson#write}), or {@code null} when that queue
     *         has none of this id
     */
    Uni<JobScheduler> get(String queue, String id) {
        return redis.send(Request.cmd(Command.HGET).arg(queues.keys(queue).schedulers()).arg(id))
                .map(spec -> spec == null ? null
                        : JobSchedulerJson.stored(JobSchedulerJson.parse(json, spec.toString()), queues.keyPrefix()));
    }

    /** @return the Redis clock, ms since the epoch */
    Uni<Long> now() {
        return redis.send(Request.cmd(Command.TIME))
                .map(time -> time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000);
    }
}
