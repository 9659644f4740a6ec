package dev.fencedqueue.llm;

import java.net.URI;
import java.util.function.IntSupplier;

import dev.fencedqueue.config.SimulatorConfig;
import io.quarkus.vertx.http.HttpServer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * This instance's built-in LLM simulator, which the clients call over HTTP when {@code fq.llm.url} is empty: under
 * {@code /simulator} on the port the HTTP server listens on (Quarkus's {@link HttpServer}, read per call: a test's
 * random port is known once the server started), when the simulator is on ({@code fq.simulator.enabled}).
 */
@ApplicationScoped
public class LocalSimulator {

    /** No simulator: for clients made outside CDI (tests of the protocol clients, which name their server). */
    static final LocalSimulator OFF = new LocalSimulator(false, () -> -1);

    private final boolean enabled;
    private final IntSupplier port;

    @Inject
    public LocalSimulator(SimulatorConfig config, HttpServer server) {
        this(config.enabled(), server::getPort);
    }

    private LocalSimulator(boolean enabled, IntSupplier port) {
        this.enabled = enabled;
        this.port = port;
    }

    /**
     * @param path a path under {@code /simulator}, starting with {@code /}
     * @return the URL of this instance's simulator endpoint
     * @throws LlmException when the simulator is off ({@code fq.simulator.enabled})
     */
    URI url(String path) {
        if (!enabled) {
            throw new LlmException("no LLM server: `fq.llm.url` is empty and the built-in simulator is off "
                    + "(`fq.simulator.enabled`)");
        }
        return URI.create("http://127.0.0.1:" + port.getAsInt() + "/simulator" + path);
    }
}
