package dev.fencedqueue.api.admin;

import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import jakarta.validation.constraints.Pattern;

/**
 * Links to traces ({@code fq.tracing.*}). Tracing itself is OpenTelemetry's, set with {@code quarkus.otel.*} (off
 * unless {@code quarkus.otel.sdk.disabled=false}).
 */
@ConfigMapping(prefix = "fq.tracing")
public interface TracingConfig {

    /** What a trace UI's URL of one trace must hold, replaced by the trace id. */
    String TRACE_ID = "{traceId}";

    /**
     * The URL of one trace in the trace UI the traces go to, with {@value #TRACE_ID} where the trace id (32 hex
     * digits) goes, for example {@code https://jaeger.example.com/trace/{traceId}}; the operator console links a job's
     * detail to its trace with it. Absent: no links; one without {@value #TRACE_ID} stops start-up.
     */
    Optional<@Pattern(regexp = ".*\\{traceId}.*", message = "must hold \\{traceId\\} where the trace id goes")
            String> uiUrl();

    /**
     * @param traceId a trace id, or {@code null}
     * @return the URL of that trace in the trace UI, or {@code null} when there is no trace id or no UI
     */
    default String traceUrl(String traceId) {
        return traceId == null ? null : uiUrl().map(url -> url.replace(TRACE_ID, traceId)).orElse(null);
    }
}
