package dev.fencedqueue.testing;

import dev.fencedqueue.dev.EmbeddedRedis;

/** A test's handle on its Redis server: stop it (Redis unreachable) and start it again on the same port. */
public final class RedisServerHandle {

    private final int port;
    private EmbeddedRedis server;

    RedisServerHandle(EmbeddedRedis server) {
        this.server = server;
        this.port = server.port();
    }

    /** @return {@code redis://127.0.0.1:<port>} */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** @return the server's port */
    public int port() {
        return port;
    }

    /** Stops the server; does nothing when it is stopped. */
    public synchronized void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** Starts the server again on the same port; does nothing when it runs. */
    public synchronized void restart() {
        if (server == null) {
            server = EmbeddedRedis.start(port, false);
        }
    }
}
