package dev.fencedqueue.dev;

import java.net.URI;
import java.util.Set;

import io.quarkus.arc.Unremovable;
import io.quarkus.arc.profile.IfBuildProfile;
import io.quarkus.redis.client.RedisHostsProvider;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Dev mode only: when {@code quarkus.redis.hosts} is not set, Quarkus asks this provider (selected by
 * {@code %dev.quarkus.redis.hosts-provider-name=embedded}) for the hosts, and it starts a real
 * {@code redis-server} on a free loopback port. The server outlives live reloads (its port is kept in a
 * system property) and stops when the JVM exits. The bean does not exist in production builds.
 */
@IfBuildProfile("dev")
@Identifier("embedded")
@Unremovable
@ApplicationScoped
public class EmbeddedRedisHostsProvider implements RedisHostsProvider {

    private static final Logger LOG = Logger.getLogger(EmbeddedRedisHostsProvider.class);
    private static final String PORT_PROPERTY = "fq.embedded-redis.port";

    @Override
    public synchronized Set<URI> getHosts() {
        String port = System.getProperty(PORT_PROPERTY);
        if (port == null) {
            EmbeddedRedis redis = EmbeddedRedis.start();
            Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "embedded-redis-stop"));
            port = Integer.toString(redis.port());
            System.setProperty(PORT_PROPERTY, port);
            LOG.infof("started embedded redis-server on %s (dev mode; set quarkus.redis.hosts to use your own)", redis.uri());
        }
        return Set.of(URI.create("redis://127.0.0.1:" + port));
    }
}
