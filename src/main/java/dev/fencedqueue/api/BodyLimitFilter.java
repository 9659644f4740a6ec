package dev.fencedqueue.api;

import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Answers {@code 413} with the JSON error body (instead of Vert.x's empty one) when a request declares a
 * {@code Content-Length} over {@code quarkus.http.limits.max-body-size}, before any of the body is read.
 * Chunked bodies over the limit still get Quarkus's own (empty) {@code 413}.
 */
@ApplicationScoped
public class BodyLimitFilter {

    private static final String BODY = "{\"error\":\"payload_too_large\",\"message\":\"the request body is larger than %d bytes\"}";

    @ConfigProperty(name = "quarkus.http.limits.max-body-size", defaultValue = "10240K")
    MemorySize maxBodySize;

    void register(@Observes Router router) {
        long limit = maxBodySize.asLongValue();
        router.route().order(Integer.MIN_VALUE).handler(context -> {
            String declared = context.request().getHeader(HttpHeaders.CONTENT_LENGTH);
            if (declared != null && isOver(declared, limit)) {
                context.response().setStatusCode(413).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                        .putHeader(HttpHeaders.CONNECTION, "close").end(BODY.formatted(limit));
            } else {
                context.next();
            }
        });
    }

    private static boolean isOver(String declared, long limit) {
        try {
            return Long.parseLong(declared.trim()) > limit;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
