package dev.fencedqueue.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import io.vertx.core.Vertx;

/**
 * One Sentinel whose notifications a test can silence: a master that cannot be demoted (as in
 * {@link StubbornMasterSentinelResource}: after a failover it stays a writable master that keeps its clients), its
 * replica, and one Sentinel that the service reaches only through a {@link CuttableProxy}, so that a test can freeze the
 * connections open through it (the service's subscription to {@code +switch-master} among them) while new ones get
 * through. New jobs wait for no replica ({@code fq.redis.wait.replicas=0}), so that only following the master switch
 * keeps them off the old master. Tests receive the processes in a {@link Muted} field annotated
 * {@link RedisTestResource.InjectRedis}.
 */
public class MutedSentinelResource extends RedisProcessesResource<MutedSentinelResource.Muted> {

    private CuttableProxy proxy;

    public MutedSentinelResource() {
        super(Muted.class);
    }

    @Override
    protected Muted build(Vertx vertx) {
        RedisProcess master = started(RedisProcess.start(vertx, "--save", "", "--appendonly", "no",
                "--rename-command", "REPLICAOF", "fq-hidden-replicaof", "--rename-command", "SLAVEOF", "fq-hidden-slaveof"));
        RedisProcess replica = started(RedisProcess.start(vertx, "--save", "", "--appendonly", "no"));
        replica.replicaOf(master.port());
        RedisProcess sentinel = started(RedisProcess.sentinel(vertx, RedisSentinelResource.MASTER, master.port()));
        await("the Sentinel knows the replica").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> sentinel.call("SENTINEL", "REPLICAS", RedisSentinelResource.MASTER).size() == 1);
        proxy = CuttableProxy.start(vertx, sentinel.port());
        return new Muted(master, replica, sentinel, proxy);
    }

    @Override
    protected Map<String, String> config(Muted muted) {
        return Map.of("quarkus.redis.client-type", "sentinel",
                "quarkus.redis.hosts", "redis://127.0.0.1:" + muted.proxy().port(),
                "quarkus.redis.master-name", RedisSentinelResource.MASTER,
                "quarkus.redis.role", "master",
                "fq.redis.wait.replicas", "0");
    }

    @Override
    public void stop() {
        if (proxy != null) {
            proxy.close();
            proxy = null;
        }
        super.stop();
    }

    /**
     * @param master the master the service starts on, which cannot be demoted
     * @param replica its replica, which a failover promotes
     * @param sentinel the one Sentinel
     * @param proxy the proxy through which the service reaches the Sentinel
     */
    public record Muted(RedisProcess master, RedisProcess replica, RedisProcess sentinel, CuttableProxy proxy) {
    }
}
