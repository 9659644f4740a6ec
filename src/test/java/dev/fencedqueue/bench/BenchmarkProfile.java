package dev.fencedqueue.bench;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The service as the benchmark runs it: no worker of its own (the benchmark starts the workers it
 * measures, with production lock settings), INFO logging, job event streams long enough to hold every
 * progress event of the progress figure, so that their order can be checked, and the production SSE keep-alive
 * interval (the test profile's 1 s would add a comment to every SSE subscriber's stream every second), and the
 * production interval of the queue gauges' reads ({@code fq.metrics.queue-refresh}: the test profile's 300 ms would scan
 * every tenant's ready jobs three times a second, which no deployment does).
 */
public class BenchmarkProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("fq.worker.enabled", "false",
                "quarkus.log.category.\"dev.fencedqueue\".level", "INFO",
                "fq.events.max-stream-length", "100000",
                "fq.events.sse.keep-alive", "15s",
                "fq.metrics.queue-refresh", "5s");
    }
}
