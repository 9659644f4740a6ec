package dev.fencedqueue.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * {@link RedisSentinelResource} with the service's default durability settings ({@code fq.redis.wait.replicas} and
 * {@code fq.redis.wait.timeout} left unset), and servers that can swap roles again and again: a demoted master
 * resynchronizes at once ({@code repl-diskless-sync-delay 0}; Redis waits 5 s by default for more replicas to join).
 */
public class SentinelDefaultsResource extends RedisSentinelResource {

    private static final String[] SETTINGS = {"--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"};

    @Override
    protected String[] masterSettings() {
        return SETTINGS.clone();
    }

    @Override
    protected String[] replicaSettings() {
        return SETTINGS.clone();
    }

    @Override
    protected Map<String, String> config(Topology topology) {
        Map<String, String> config = new HashMap<>(super.config(topology));
        config.remove("fq.redis.wait.replicas");
        config.remove("fq.redis.wait.timeout");
        return config;
    }
}
