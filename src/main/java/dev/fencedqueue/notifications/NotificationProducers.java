package dev.fencedqueue.notifications;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.bulk.ChunkedProcessors;
import dev.fencedqueue.bulk.PostgresCursors;
import dev.fencedqueue.bulk.RedisCursors;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.postgres.Database;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.WorkerManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/**
 * Wires the notifications to the sink {@code fq.bulk.sink} names: the fan-out as a {@link JobProcessor} bean (so
 * that every instance runs a worker on its queue) and the {@link NotificationStore} the API reads and writes.
 */
@ApplicationScoped
public class NotificationProducers {

    @Produces
    @ApplicationScoped
    JobProcessor fanOutProcessor(BulkConfig config, PostgresNotificationFanOut postgres, RedisNotificationFanOut redis,
            ChunkedProcessors processors) {
        return switch (config.sink()) {
            case POSTGRESQL -> processors.postgres(postgres);
            case REDIS -> processors.redis(redis);
        };
    }

    @Produces
    @ApplicationScoped
    NotificationStore store(BulkConfig config, Database database, PostgresCursors postgresCursors,
            RedisCursors redisCursors, RedisNotificationFanOut redis, SharedConnection connection,
            WorkerManager workers, ObjectMapper json) {
        return switch (config.sink()) {
            case POSTGRESQL -> new PostgresNotifications(database, postgresCursors, workers.blockingExecutor());
            case REDIS -> new RedisNotifications(connection, redis.keys(), redisCursors, json);
        };
    }
}
