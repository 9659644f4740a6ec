package dev.fencedqueue.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * {@link RedisSentinelResource} whose master cannot be demoted: its {@code REPLICAOF} and {@code SLAVEOF} are renamed
 * (Sentinel is not told), so after a failover it stays a writable master that keeps its clients, as an old master
 * that Sentinel cannot reach but clients can does. New jobs wait for no replica ({@code fq.redis.wait.replicas=0}),
 * so that only following the master switch keeps them off the old master.
 */
public class StubbornMasterSentinelResource extends RedisSentinelResource {

    @Override
    protected String[] masterSettings() {
        return new String[] {"--save", "", "--appendonly", "no",
                "--rename-command", "REPLICAOF", "fq-hidden-replicaof", "--rename-command", "SLAVEOF", "fq-hidden-slaveof"};
    }

    @Override
    protected Map<String, String> config(Topology topology) {
        Map<String, String> config = new HashMap<>(super.config(topology));
        config.put("fq.redis.wait.replicas", "0");
        return config;
    }
}
