package dev.fencedqueue.testing;

import java.util.Map;

import dev.fencedqueue.research.OpenAiResumeProfile;

/**
 * {@link OpenAiResumeProfile} (no worker of the service's own, OpenAI's protocol to the simulator, takeovers continue
 * the answer) with tracing on: every span sampled and exported within 100 ms, to {@link InMemorySpans} (the OTLP
 * exporter has no receiver here), a trace UI the console links to, and bulk jobs on the Redis sink.
 */
public class TracingProfile extends OpenAiResumeProfile {

    /** The trace UI a job's detail links to ({@code fq.tracing.ui-url}). */
    public static final String UI_URL = "https://traces.example.com/trace/{traceId}?view=spans";

    @Override
    protected Map<String, String> simulator() {
        return Map.of("quarkus.otel.sdk.disabled", "false",
                "quarkus.otel.bsp.schedule.delay", "100ms",
                "fq.tracing.ui-url", UI_URL,
                "fq.bulk.sink", "redis");
    }
}
