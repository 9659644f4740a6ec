package dev.fencedqueue.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.vertx.core.Vertx;

/**
 * A Redis Cluster of three masters for a Quarkus test run, made of the same static {@code redis-server} binary as the
 * other tests ({@link RedisProcess}, {@code --cluster-enabled yes}): the 16,384 slots split in three with
 * {@code CLUSTER ADDSLOTSRANGE}, the nodes introduced with {@code CLUSTER MEET}, and the run waits until every node
 * says {@code cluster_state:ok}. Points the service at all three with {@code quarkus.redis.client-type=cluster}, and
 * always stops them. Tests receive the nodes in a {@link Nodes} field annotated {@link RedisTestResource.InjectRedis}.
 */
public class RedisClusterResource extends RedisProcessesResource<RedisClusterResource.Nodes> {

    private static final int[][] SLOTS = {{0, 5460}, {5461, 10922}, {10923, 16383}};

    public RedisClusterResource() {
        super(Nodes.class);
    }

    @Override
    protected Nodes build(Vertx vertx) {
        List<RedisProcess> nodes = new ArrayList<>();
        for (int[] range : SLOTS) {
            RedisProcess node = started(RedisProcess.start(vertx, "--cluster-enabled", "yes", "--cluster-config-file",
                    "nodes.conf", "--cluster-node-timeout", "5000", "--save", "", "--appendonly", "no"));
            nodes.add(node);
            node.call("CLUSTER", "ADDSLOTSRANGE", Integer.toString(range[0]), Integer.toString(range[1]));
        }
        for (RedisProcess node : nodes.subList(1, nodes.size())) {
            nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(node.port()));
        }
        await("the cluster is up").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(() -> nodes.stream()
                        .allMatch(node -> node.call("CLUSTER", "INFO").toString().contains("cluster_state:ok")));
        return new Nodes(List.copyOf(nodes));
    }

    @Override
    protected Map<String, String> config(Nodes nodes) {
        return Map.of("quarkus.redis.client-type", "cluster",
                "quarkus.redis.hosts", nodes.all().stream().map(RedisProcess::uri).collect(Collectors.joining(",")));
    }

    /** @param all the cluster's masters, each owning a third of the slots */
    public record Nodes(List<RedisProcess> all) {
    }
}
