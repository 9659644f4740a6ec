package dev.fencedqueue.testing;

import java.util.Map;

import io.vertx.core.Vertx;

/**
 * A master and one replica in sync, without persistence, from the tests' binary ({@link RedisServers}); points the
 * service at the master and leaves its durability settings alone. Always stops both. Tests receive them in a
 * {@link Pair} field annotated {@link RedisTestResource.InjectRedis}.
 */
public class RedisReplicatedResource extends RedisProcessesResource<RedisReplicatedResource.Pair> {

    public RedisReplicatedResource() {
        super(Pair.class);
    }

    @Override
    protected Pair build(Vertx vertx) {
        RedisProcess master = started(RedisProcess.start(vertx, "--save", "", "--appendonly", "no"));
        RedisProcess replica = started(RedisProcess.start(vertx, "--save", "", "--appendonly", "no"));
        replica.replicaOf(master.port());
        return new Pair(master, replica);
    }

    @Override
    protected Map<String, String> config(Pair pair) {
        return Map.of("quarkus.redis.hosts", pair.master().uri());
    }

    /**
     * @param master the master the service writes to
     * @param replica its replica
     */
    public record Pair(RedisProcess master, RedisProcess replica) {
    }
}
