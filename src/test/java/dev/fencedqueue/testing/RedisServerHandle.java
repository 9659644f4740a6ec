package dev.fencedqueue.testing;

/** A test's handle on its Redis server: stop it (Redis unreachable) and start it again on the same port. */
public final class RedisServerHandle {

    private final RedisProcess server;

    RedisServerHandle(RedisProcess server) {
        this.server = server;
    }

    /** @return {@code redis://127.0.0.1:<port>} */
    public String uri() {
        return server.uri();
    }

    /** @return the server's port */
    public int port() {
        return server.port();
    }

    /** Stops the server (it keeps no data: nothing is persisted); does nothing when it is stopped. */
    public void stop() {
        server.kill();
    }

    /** Starts the server again on the same port, empty; does nothing when it runs. */
    public void restart() {
        server.restart();
    }
}
