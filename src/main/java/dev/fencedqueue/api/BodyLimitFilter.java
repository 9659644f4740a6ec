package dev.fencedqueue.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Answers {@code 413} with the JSON error body (instead of Vert.x's empty one) when a request declares a
 * {@code Content-Length} over {@code quarkus.http.limits.max-body-size}, before any of the body is read.
 * Chunked bodies over the limit still get Quarkus's own (empty) {@code 413}.
 */
@ApplicationScoped
public class BodyLimitFilter {

    @ConfigProperty(name = "quarkus.http.limits.max-body-size", defaultValue = "10240K")
    MemorySize maxBodySize;

    @Inject
    ObjectMapper json;

    void register(@Observes Router router) {
        long limit = maxBodySize.asLongValue();
        HttpError tooLarge = HttpError.of(413, ApiError.of("payload_too_large",
                "the request body is larger than " + limit + " bytes"));
        router.route().order(Integer.MIN_VALUE).handler(context -> {
            String declared = context.request().getHeader(HttpHeaders.CONTENT_LENGTH);
            if (declared != null && isOver(declared, limit)) {
                tooLarge.send(context.response().putHeader(HttpHeaders.CONNECTION, "close"), json);
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
