package dev.fencedqueue.api;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.config.SimulatorConfig;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Turns the built-in LLM simulator's endpoints ({@code /simulator/...}) off unless {@code fq.simulator.enabled}: they
 * then answer 404 (as JSON) before any simulator code runs, so that a production instance offers no fake LLM.
 */
@ApplicationScoped
public class SimulatorSwitch {

    private static final ApiError OFF = ApiError.of("not_found", "the built-in LLM simulator is off (fq.simulator.enabled)");

    private final boolean enabled;
    private final ObjectMapper json;

    public SimulatorSwitch(SimulatorConfig config, ObjectMapper json) {
        this.enabled = config.enabled();
        this.json = json;
    }

    void install(@Observes Router router) {
        if (!enabled) {
            router.route("/simulator/*").order(-50).handler(context -> OFF.send(context.response(), 404, json));
        }
    }
}
