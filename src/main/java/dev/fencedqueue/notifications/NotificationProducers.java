package dev.fencedqueue.notifications;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.bulk.BulkMetrics;
import dev.fencedqueue.bulk.ChunkedProcessor;
import dev.fencedqueue.bulk.Database;
import dev.fencedqueue.bulk.PostgresCursors;
import dev.fencedqueue.bulk.PostgresSink;
import dev.fencedqueue.bulk.RedisCursors;
import dev.fencedqueue.bulk.RedisSink;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.tracing.JobTracing;
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
            PostgresCursors postgresCursors, RedisCursors redisCursors, BulkControl control, JobTracing tracing,
            SharedConnection connection, BulkMetrics metrics, WorkerManager workers) {
        return switch (config.sink()) {
            case POSTGRESQL -> new ChunkedProcessor<>(postgres,
                    new PostgresSink<>(postgres, postgresCursors, workers.blockingExecutor()), control, tracing,
                    metrics, config);
            case REDIS -> new ChunkedProcessor<>(redis, new RedisSink<>(redis, redisCursors, connection), control,
                    tracing, metrics, config);
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
