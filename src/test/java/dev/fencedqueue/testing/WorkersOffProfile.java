package dev.fencedqueue.testing;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/** The service without its own worker: tests start the workers they need, or keep jobs waiting. */
public class WorkersOffProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("fq.worker.enabled", "false",
                "fq.simulator.steps", "30",
                "fq.simulator.step-interval", "200ms");
    }
}
