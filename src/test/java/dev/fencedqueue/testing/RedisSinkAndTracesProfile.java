package dev.fencedqueue.testing;

import java.util.Map;

/**
 * {@link WorkersOffProfile} with what the application reads once at startup for {@code RedisSinkTest} and
 * {@code TracingTest}, which share it: bulk jobs on the Redis sink ({@code fq.bulk.sink=redis}, no PostgreSQL), and
 * tracing on, every span sampled and exported within 100 ms to {@link InMemorySpans} (the OTLP exporter has no
 * receiver here), with a trace UI the console links to.
 */
public class RedisSinkAndTracesProfile extends WorkersOffProfile {

    /** The trace UI a job's detail links to ({@code fq.tracing.ui-url}). */
    public static final String UI_URL = "https://traces.example.com/trace/{traceId}?view=spans";

    @Override
    protected Map<String, String> more() {
        return Map.of("fq.bulk.sink", "redis",
                "quarkus.otel.sdk.disabled", "false",
                "quarkus.otel.bsp.schedule.delay", "100ms",
                "fq.tracing.ui-url", UI_URL);
    }
}
