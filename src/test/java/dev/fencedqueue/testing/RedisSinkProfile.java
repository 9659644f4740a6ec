package dev.fencedqueue.testing;

import java.util.Map;

/** {@link WorkersOffProfile} with the Redis sink ({@code fq.bulk.sink=redis}) and no PostgreSQL. */
public class RedisSinkProfile extends WorkersOffProfile {

    @Override
    protected Map<String, String> more() {
        return Map.of("fq.bulk.sink", "redis");
    }
}
