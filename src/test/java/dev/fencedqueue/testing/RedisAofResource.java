package dev.fencedqueue.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vertx.core.Vertx;

/**
 * A master with its append-only file on ({@code appendfsync everysec}) and a replica without one, from the Redis 7.2+
 * binary that {@link RedisProcess#NEWER_SERVER_VARIABLE} names; points the service at the master with
 * {@code fq.redis.wait-aof=true} and {@code fq.redis.wait-replicas=1}, so that a new job is accepted only once both
 * append-only files have it. Always stops both processes. Tests receive them in a {@link Pair} field annotated
 * {@link RedisTestResource.InjectRedis}.
 */
public class RedisAofResource implements QuarkusTestResourceLifecycleManager {

    private final List<RedisProcess> processes = new ArrayList<>();
    private Pair pair;
    private Vertx vertx;

    @Override
    public Map<String, String> start() {
        vertx = Vertx.vertx();
        try {
            RedisProcess master = started(RedisProcess.startNewer(vertx, "--save", "", "--appendonly", "yes",
                    "--appendfsync", "everysec"));
            RedisProcess replica = started(RedisProcess.startNewer(vertx, "--save", "", "--appendonly", "no"));
            replica.call("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            await("the replica is in sync").atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> replica.call("INFO", "replication").toString().contains("master_link_status:up"));
            pair = new Pair(master, replica);
            return Map.of("quarkus.redis.hosts", master.uri(),
                    "fq.redis.wait-aof", "true",
                    "fq.redis.wait-replicas", "1",
                    "fq.redis.wait-timeout", "2s"); // everysec: up to a second to the next fsync
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    private RedisProcess started(RedisProcess process) {
        processes.add(process);
        return process;
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(pair,
                new TestInjector.AnnotatedAndMatchesType(RedisTestResource.InjectRedis.class, Pair.class));
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

    /**
     * @param master the master the service writes to, with {@code appendonly yes}
     * @param replica its replica, with {@code appendonly no} until a test turns it on
     */
    public record Pair(RedisProcess master, RedisProcess replica) {
    }
}
