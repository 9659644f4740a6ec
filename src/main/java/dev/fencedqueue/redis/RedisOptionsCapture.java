package dev.fencedqueue.redis;

import io.quarkus.arc.Unremovable;
import io.quarkus.redis.client.RedisOptionsCustomizer;
import io.vertx.redis.client.RedisOptions;
import jakarta.inject.Singleton;

/**
 * Keeps a copy of the options Quarkus builds for its default Redis client (hosts or hosts provider,
 * credentials, TLS, Sentinel or Cluster topology), so that {@link SharedConnection} can open its
 * long-lived connections with exactly the same settings, from a client of its own.
 */
@Singleton
@Unremovable
public class RedisOptionsCapture implements RedisOptionsCustomizer {

    private volatile RedisOptions defaultOptions;

    @Override
    public void customize(String clientName, RedisOptions options) {
        if ("<default>".equals(clientName)) {
            defaultOptions = new RedisOptions(options);
        }
    }

    /**
     * @return a copy of the default client's options
     * @throws IllegalStateException when the default client has not been created yet
     */
    RedisOptions defaultOptions() {
        RedisOptions options = defaultOptions;
        if (options == null) {
            throw new IllegalStateException("the default Redis client has not been configured yet");
        }
        return new RedisOptions(options);
    }
}
