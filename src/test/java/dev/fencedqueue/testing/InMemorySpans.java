package dev.fencedqueue.testing;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The OpenTelemetry SDK's in-memory span exporter, as a bean: Quarkus exports every finished span to it beside its
 * OTLP exporter (while tracing is on: {@code quarkus.otel.sdk.disabled=false}, as {@link RedisSinkAndTracesProfile} sets it).
 */
@ApplicationScoped
public class InMemorySpans {

    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
