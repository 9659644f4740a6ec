package dev.fencedqueue.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import redis.embedded.RedisServer;

/**
 * A real {@code redis-server} (the static binary shipped in {@code org.signal:embedded-redis}) on a free
 * loopback port, for dev mode and tests. The artifact is a {@code provided} dependency: it is on the
 * classpath of {@code quarkus:dev} and of the tests, never in the packaged application.
 */
public final class EmbeddedRedis implements AutoCloseable {

    private final RedisServer server;
    private final int port;

    private EmbeddedRedis(RedisServer server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * Starts a server without persistence.
     *
     * @return the running server
     * @throws UncheckedIOException when no free port can be found
     */
    public static EmbeddedRedis start() {
        return start(freePort(), false);
    }

    /**
     * Starts a server on a given port.
     *
     * @param port the loopback port to listen on
     * @param appendOnly whether to enable the append-only file (AOF) in the working directory
     * @return the running server
     */
    public static EmbeddedRedis start(int port, boolean appendOnly) {
        RedisServer server = RedisServer.builder()
                .port(port)
                .bind("127.0.0.1")
                .setting("save \"\"")
                .setting("appendonly " + (appendOnly ? "yes" : "no"))
                .build();
        server.start();
        return new EmbeddedRedis(server, port);
    }

    /** @return the port the server listens on */
    public int port() {
        return port;
    }

    /** @return the server's URI, for {@code quarkus.redis.hosts} */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Stops the server (the process exits). */
    @Override
    public void close() {
        server.stop();
    }

    /** @return a loopback port that was free a moment ago */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }
}
