package dev.fencedqueue.it;

import java.util.Map;

import dev.fencedqueue.testing.RedisNotificationRows;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link FanOutScenario} into the Redis sink ({@code fq.bulk.sink=redis}): no PostgreSQL at all; the chunk writes,
 * the cursor and the fencing check commit in one Lua script.
 */
class RedisFanOutProcessIT extends FanOutScenario {

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet(config(Map.of("fq.bulk.sink", "redis")));

    private RedisNotificationRows rows;

    @AfterEach
    void closeRows() throws Exception {
        if (rows != null) {
            rows.close();
        }
    }

    @Override
    ProcessFleet fleet() {
        return fleet;
    }

    @Override
    String channelWith(int count) {
        return rows().channelWith(count);
    }

    @Override
    long notifications(String channel, String jobId) {
        return rows().notifications(channel, jobId);
    }

    @Override
    long outbox(String channel, String jobId) {
        return rows().outbox(channel, jobId);
    }

    @Override
    long notExactlyOnce(String channel, String jobId) {
        return rows().notificationsNotExactlyOnce(channel, jobId) + rows().outboxNotExactlyOnce(channel, jobId);
    }

    private RedisNotificationRows rows() {
        if (rows == null) {
            rows = RedisNotificationRows.connect(fleet.redisUri());
        }
        return rows;
    }
}
