package dev.fencedqueue.it;

import java.util.Map;

import dev.fencedqueue.testing.NotificationRows;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link FanOutScenario} into the PostgreSQL sink (the default), with a real PostgreSQL. */
class FanOutProcessIT extends FanOutScenario {

    @RegisterExtension
    final ProcessFleet fleet = ProcessFleet.withPostgres(config(Map.of()));

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
        return rows().rows("notification", jobId);
    }

    @Override
    long outbox(String channel, String jobId) {
        return rows().rows("push_outbox", jobId);
    }

    @Override
    long notExactlyOnce(String channel, String jobId) {
        return rows().notExactlyOnce("notification", channel, jobId) + rows().notExactlyOnce("push_outbox", channel, jobId);
    }

    private NotificationRows rows() {
        return fleet.rows();
    }
}
