package dev.fencedqueue.it;

import java.util.Map;

import dev.fencedqueue.testing.FanOutRows;
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
    FanOutRows rows() {
        return fleet.rows();
    }
}
