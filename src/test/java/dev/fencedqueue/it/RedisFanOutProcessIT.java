package dev.fencedqueue.it;

import java.util.Map;

import dev.fencedqueue.testing.FanOutRows;
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
    FanOutRows rows() {
        if (rows == null) {
            rows = RedisNotificationRows.connect(fleet.redisUri());
        }
        return rows;
    }
}
