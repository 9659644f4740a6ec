package dev.fencedqueue.api;

import dev.fencedqueue.config.SimulatorConfig;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Turns the built-in LLM simulator's endpoints ({@code /simulator/...}) off unless {@code fq.simulator.enabled}: they
 * then answer 404 (as JSON) before any simulator code runs, so that a production instance offers no fake LLM.
 */
@ApplicationScoped
public class SimulatorSwitch {

    private static final String NOT_FOUND = "{\"error\":\"not_found\",\"message\":\"the built-in LLM simulator is off "
            + "(fq.simulator.enabled)\"}";

    private final boolean enabled;

    public SimulatorSwitch(SimulatorConfig config) {
        this.enabled = config.enabled();
    }

    void install(@Observes Router router) {
        if (!enabled) {
            router.route("/simulator/*").order(-50).handler(context -> context.response().setStatusCode(404)
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(NOT_FOUND));
        }
    }
}
