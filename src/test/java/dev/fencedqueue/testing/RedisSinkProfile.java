package dev.fencedqueue.testing;

import java.util.HashMap;
import java.util.Map;

/** {@link WorkersOffProfile} with the Redis sink ({@code fq.bulk.sink=redis}) and no PostgreSQL. */
public class RedisSinkProfile extends WorkersOffProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>(super.getConfigOverrides());
        config.put("fq.bulk.sink", "redis");
        return config;
    }
}
