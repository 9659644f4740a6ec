package dev.fencedqueue.testing;

import java.util.Map;

import io.vertx.core.Vertx;

/**
 * A master with its append-only file on ({@code appendfsync everysec}) and a replica without one, from the tests' binary
 * ({@link RedisServers}; {@code WAITAOF} needs Redis 7.2+ or Valkey, see {@link RedisServers#hasWaitAof()}); points the service at the master with
 * {@code fq.redis.wait.aof=true} and {@code fq.redis.wait.replicas=1}, so that a new job is accepted only once both
 * append-only files have it. Always stops both processes. Tests receive them in a {@link Pair} field annotated
 * {@link RedisTestResource.InjectRedis}.
 */
public class RedisAofResource extends RedisProcessesResource<RedisAofResource.Pair> {

    public RedisAofResource() {
        super(Pair.class);
    }

    @Override
    protected Pair build(Vertx vertx) {
        RedisProcess master = started(RedisProcess.start(vertx, "--save", "", "--appendonly", "yes",
                "--appendfsync", "everysec"));
        RedisProcess replica = started(RedisProcess.start(vertx, "--save", "", "--appendonly", "no"));
        replica.replicaOf(master.port());
        return new Pair(master, replica);
    }

    @Override
    protected Map<String, String> config(Pair pair) {
        return Map.of("quarkus.redis.hosts", pair.master().uri(),
                "fq.redis.wait.aof", "true",
                "fq.redis.wait.replicas", "1",
                "fq.redis.wait.timeout", "2s"); // everysec: up to a second to the next fsync
    }

    /**
     * @param master the master the service writes to, with {@code appendonly yes}
     * @param replica its replica, with {@code appendonly no} until a test turns it on
     */
    public record Pair(RedisProcess master, RedisProcess replica) {
    }
}
