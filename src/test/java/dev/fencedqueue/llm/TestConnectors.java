package dev.fencedqueue.llm;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.fencedqueue.llm.LlmConfig;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The {@link LlmConnector}s a test builds for clients of its own (of a {@code LocalHttpServer}, with a
 * {@link TestLlmConfig}), each closed after the test. Register it with {@code @RegisterExtension}.
 */
final class TestConnectors implements AfterEachCallback {

    private final Supplier<Vertx> vertx;
    private final List<LlmConnector> open = new ArrayList<>();

    /** @param vertx the test's Vert.x instance, asked when a connector is built (injected after construction) */
    TestConnectors(Supplier<Vertx> vertx) {
        this.vertx = vertx;
    }

    /**
     * @param config the clients' configuration, must not be {@code null}
     * @return a connector that spends no budget ({@link CallGate#NONE}), closed after the test
     */
    LlmConnector open(LlmConfig config) {
        return open(config, CallGate.NONE);
    }

    /**
     * @param config the clients' configuration, must not be {@code null}
     * @param gate told of the connector's calls, must not be {@code null}
     * @return a connector, closed after the test
     */
    LlmConnector open(LlmConfig config, CallGate gate) {
        LlmConnector connector = new LlmConnector(vertx.get(), config, gate);
        open.add(connector);
        return connector;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        open.forEach(LlmConnector::close);
        open.clear();
    }
}
