package dev.fencedqueue.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vertx.core.Vertx;

/**
 * The life cycle the Redis topologies of the tests share ({@link RedisClusterResource}, {@link RedisSentinelResource},
 * {@link RedisAofResource}): a Vert.x instance for their {@link RedisProcess}es, every process started through
 * {@link #started} stopped at the end (also when starting the topology failed half-way), and the topology injected into
 * the test's field of type {@code T} annotated {@link RedisTestResource.InjectRedis}.
 *
 * @param <T> what tests receive: a record of the processes
 */
public abstract class RedisProcessesResource<T> implements QuarkusTestResourceLifecycleManager {

    private final Class<T> type;
    private final List<RedisProcess> processes = new ArrayList<>();
    private Vertx vertx;
    private T topology;

    protected RedisProcessesResource(Class<T> type) {
        this.type = type;
    }

    /**
     * Starts the processes (each through {@link #started}) and waits until they are ready.
     *
     * @param vertx the Vert.x instance of their clients
     * @return what tests receive
     */
    protected abstract T build(Vertx vertx);

    /**
     * @param topology what {@link #build} returned
     * @return the service's configuration for it
     */
    protected abstract Map<String, String> config(T topology);

    /** @return {@code process}, which {@link #stop} stops */
    protected final RedisProcess started(RedisProcess process) {
        processes.add(process);
        return process;
    }

    @Override
    public Map<String, String> start() {
        vertx = Vertx.vertx();
        try {
            topology = build(vertx);
            return config(topology);
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(topology,
                new TestInjector.AnnotatedAndMatchesType(RedisTestResource.InjectRedis.class, type));
    }

    @Override
    public void stop() {
        processes.forEach(RedisProcess::close);
        processes.clear();
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().join();
            vertx = null;
        }
    }
}
