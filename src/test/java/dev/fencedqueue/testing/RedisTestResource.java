package dev.fencedqueue.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;

import io.vertx.core.Vertx;

/**
 * Starts a real {@code redis-server} (the tests' binary, {@link RedisServers}) without persistence on a free loopback
 * port for a Quarkus test run, points {@code quarkus.redis.hosts} at it, and always stops it. Tests may inject the
 * running server into a field annotated {@link InjectRedis}, to stop and restart it.
 */
public class RedisTestResource extends RedisProcessesResource<RedisServerHandle> {

    /** Marks a field of a test that should receive the Redis of its resource ({@link RedisServerHandle}, a topology). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.FIELD)
    public @interface InjectRedis {
    }

    public RedisTestResource() {
        super(RedisServerHandle.class);
    }

    @Override
    protected RedisServerHandle build(Vertx vertx) {
        return new RedisServerHandle(started(RedisProcess.start(vertx, "--save", "", "--appendonly", "no")));
    }

    @Override
    protected Map<String, String> config(RedisServerHandle server) {
        return Map.of("quarkus.redis.hosts", server.uri());
    }
}
