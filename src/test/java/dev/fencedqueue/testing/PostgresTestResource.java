package dev.fencedqueue.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;

import dev.fencedqueue.dev.EmbeddedPostgresServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Starts a real PostgreSQL ({@link EmbeddedPostgresServer}) on a free loopback port for a Quarkus test run,
 * points the default datasource at it (Flyway migrates it at startup), and always stops it. Tests, also
 * {@code @QuarkusIntegrationTest} ones, may inject {@link NotificationRows} on that database into a field
 * annotated {@link InjectPostgres}.
 */
public class PostgresTestResource implements QuarkusTestResourceLifecycleManager {

    /** Marks a {@link NotificationRows} field of a test that should read the test's database. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.FIELD)
    public @interface InjectPostgres {
    }

    private static final java.util.List<String> SETTINGS = java.util.List.of("quarkus.datasource.jdbc.url",
            "quarkus.datasource.username", "quarkus.datasource.password");

    private EmbeddedPostgresServer server;

    @Override
    public Map<String, String> start() {
        server = EmbeddedPostgresServer.start();
        return Map.of("quarkus.datasource.jdbc.url", server.jdbcUrl(),
                "quarkus.datasource.username", EmbeddedPostgresServer.USER,
                "quarkus.datasource.password", EmbeddedPostgresServer.PASSWORD);
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(new NotificationRows(server.jdbcUrl(), EmbeddedPostgresServer.USER,
                EmbeddedPostgresServer.PASSWORD), new TestInjector.AnnotatedAndMatchesType(InjectPostgres.class,
                NotificationRows.class));
    }

    @Override
    public void stop() {
        if (server != null) {
            server.close();
        }
        // Quarkus keeps a resource's settings as system properties of the test JVM; a packaged application launched
        // later for a test without this resource must not inherit a URL that points at a stopped server.
        SETTINGS.forEach(System::clearProperty);
    }
}
