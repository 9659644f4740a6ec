package dev.fencedqueue.testing;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vertx.core.Vertx;

/**
 * Starts a {@code redis-server} process whose faults a test controls ({@link RedisProcess}: {@code SIGKILL}, a restart
 * from what it persisted) and a {@link CuttableProxy} in front of it, points {@code quarkus.redis.hosts} at the
 * proxy (so that a test can cut the service's connections, or send them to another server as a failover does), and
 * always stops both. The server has no automatic snapshots ({@code save ""}) and no AOF: a test persists with
 * {@code SAVE} when it wants a snapshot to fall back to. Tests receive both in a {@link RedisFaults} field annotated
 * {@link RedisTestResource.InjectRedis}.
 */
public class RedisFaultsResource implements QuarkusTestResourceLifecycleManager {

    private RedisFaults faults;

    @Override
    public Map<String, String> start() {
        Vertx vertx = Vertx.vertx();
        RedisProcess master = null;
        try {
            master = RedisProcess.start(vertx, "--save", "", "--appendonly", "no");
            CuttableProxy proxy = CuttableProxy.start(vertx, master.port());
            faults = new RedisFaults(vertx, master, proxy);
            return Map.of("quarkus.redis.hosts", "redis://127.0.0.1:" + proxy.port());
        } catch (RuntimeException e) {
            if (master != null) {
                master.close();
            }
            vertx.close();
            throw e;
        }
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(faults,
                new TestInjector.AnnotatedAndMatchesType(RedisTestResource.InjectRedis.class, RedisFaults.class));
    }

    @Override
    public void stop() {
        if (faults != null) {
            faults.close();
        }
    }

    /**
     * The service's Redis and the proxy it reaches it through.
     *
     * @param vertx the Vert.x instance both run on (for more servers and proxies a test starts)
     * @param master the server the service starts on
     * @param proxy the proxy in front of it, which {@code quarkus.redis.hosts} names
     */
    public record RedisFaults(Vertx vertx, RedisProcess master, CuttableProxy proxy) implements AutoCloseable {

        /** Closes the proxy and kills the server (the Vert.x instance last). */
        @Override
        public void close() {
            try {
                proxy.close();
            } finally {
                master.close();
                vertx.close().toCompletionStage().toCompletableFuture().join();
            }
        }
    }
}
