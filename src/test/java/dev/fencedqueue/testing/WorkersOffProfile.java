package dev.fencedqueue.testing;

import java.util.HashMap;
import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The service without its own worker: tests start the workers they need, or keep jobs waiting. A profile that needs
 * more settings extends this one and returns them from {@link #more()}.
 */
public class WorkersOffProfile implements QuarkusTestProfile {

    @Override
    public final Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>(Map.of("fq.worker.enabled", "false",
                "fq.simulator.research.steps", "30",
                "fq.simulator.research.step-interval", "200ms"));
        config.putAll(more());
        return config;
    }

    /** @return settings added to (or replacing) this profile's, none by default */
    protected Map<String, String> more() {
        return Map.of();
    }
}
