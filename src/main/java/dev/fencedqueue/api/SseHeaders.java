package dev.fencedqueue.api;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Headers every SSE response carries for the proxies people run in front of it: {@code Cache-Control: no-cache}
 * (no cache may store or merge a live stream; the SSE specification's recommendation) and
 * {@code X-Accel-Buffering: no} (nginx, and ingress controllers built on it, would otherwise buffer the stream and
 * deliver events late, in bursts). Added on the Vert.x router, just before the headers go out, to every response
 * whose {@code Content-Type} is {@code text/event-stream}: streaming REST responses, the operator feeds and any
 * later SSE endpoint alike.
 */
@ApplicationScoped
public class SseHeaders {

    void install(@Observes Router router) {
        router.route().order(-100).handler(context -> {
            context.addHeadersEndHandler(ignored -> {
                String type = context.response().headers().get(HttpHeaders.CONTENT_TYPE);
                if (type != null && type.startsWith("text/event-stream")) {
                    context.response().putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
                            .putHeader("X-Accel-Buffering", "no");
                }
            });
            context.next();
        });
    }
}
