package dev.fencedqueue.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.vertx.core.Vertx;

/**
 * Redis with Sentinel for a Quarkus test run, from the same static {@code redis-server} binary as the other tests
 * ({@link RedisProcess}): one master, one replica and three Sentinels (quorum 2, a master is down after 1 s). Points the
 * service at the Sentinels ({@code quarkus.redis.client-type=sentinel}, master set {@value #MASTER}) and makes a new job
 * wait for the replica before it is accepted ({@code fq.redis.wait.replicas=1}); always stops every process. Tests
 * receive the processes in a {@link Topology} field annotated {@link RedisTestResource.InjectRedis}.
 */
public class RedisSentinelResource extends RedisProcessesResource<RedisSentinelResource.Topology> {

    /** The name of the master set. */
    public static final String MASTER = "fq-master";

    public RedisSentinelResource() {
        super(Topology.class);
    }

    @Override
    protected Topology build(Vertx vertx) {
        RedisProcess master = started(RedisProcess.start(vertx, masterSettings()));
        RedisProcess replica = started(RedisProcess.start(vertx, replicaSettings()));
        replica.replicaOf(master.port());
        List<RedisProcess> sentinels = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sentinels.add(started(RedisProcess.sentinel(vertx, MASTER, master.port())));
        }
        await("the Sentinels know the replica and each other").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> sentinels.stream().allMatch(
                        s -> s.call("SENTINEL", "REPLICAS", MASTER).size() == 1
                                && s.call("SENTINEL", "SENTINELS", MASTER).size() == 2));
        return new Topology(master, replica, List.copyOf(sentinels));
    }

    @Override
    protected Map<String, String> config(Topology topology) {
        return Map.of("quarkus.redis.client-type", "sentinel",
                "quarkus.redis.hosts", topology.sentinels().stream().map(RedisProcess::uri)
                        .collect(Collectors.joining(",")),
                "quarkus.redis.master-name", MASTER,
                "quarkus.redis.role", "master",
                "fq.redis.wait.replicas", "1",
                "fq.redis.wait.timeout", "500ms");
    }

    /** @return the master's {@code redis-server} options */
    protected String[] masterSettings() {
        return new String[] {"--save", "", "--appendonly", "no"};
    }

    /** @return the replica's {@code redis-server} options */
    protected String[] replicaSettings() {
        return new String[] {"--save", "", "--appendonly", "no"};
    }

    /**
     * @param master the master the service starts on
     * @param replica its replica, which a failover promotes
     * @param sentinels the three Sentinels
     */
    public record Topology(RedisProcess master, RedisProcess replica, List<RedisProcess> sentinels) {
    }
}
