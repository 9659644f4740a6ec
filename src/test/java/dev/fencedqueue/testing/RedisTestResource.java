package dev.fencedqueue.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;

import dev.fencedqueue.dev.EmbeddedRedis;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Starts a real {@code redis-server} (embedded-redis's static binary) on a free loopback port for a
 * Quarkus test run, points {@code quarkus.redis.hosts} at it, and always stops it. Tests may inject the
 * running server into a field annotated {@link InjectRedis}, to stop and restart it.
 */
public class RedisTestResource implements QuarkusTestResourceLifecycleManager {

    /** Marks a {@link RedisServerHandle} field of a test that should receive the server. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.FIELD)
    public @interface InjectRedis {
    }

    private RedisServerHandle handle;

    @Override
    public Map<String, String> start() {
        handle = new RedisServerHandle(EmbeddedRedis.start());
        return Map.of("quarkus.redis.hosts", handle.uri());
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(handle, new TestInjector.AnnotatedAndMatchesType(InjectRedis.class, RedisServerHandle.class));
    }

    @Override
    public void stop() {
        if (handle != null) {
            handle.stop();
        }
    }
}
