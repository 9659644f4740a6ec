package dev.fencedqueue.testing;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

/**
 * A TCP proxy on a free loopback port in front of a local server, whose connections a test can cut, as a
 * load balancer's idle timeout or a network blip would. Bytes are piped both ways unchanged (Vert.x
 * {@code NetSocket.pipeTo}, with back-pressure).
 */
public final class CuttableProxy implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final NetServer server;
    private final NetClient client;
    private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();

    private CuttableProxy(NetServer server, NetClient client) {
        this.server = server;
        this.client = client;
    }

    /**
     * @param vertx the Vert.x instance to run on
     * @param targetPort the port of the server on 127.0.0.1 to forward to
     * @return the proxy, listening
     */
    public static CuttableProxy start(Vertx vertx, int targetPort) {
        NetClient client = vertx.createNetClient();
        NetServer server = vertx.createNetServer();
        CuttableProxy proxy = new CuttableProxy(server, client);
        server.connectHandler(front -> proxy.forward(front, targetPort));
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().orTimeout(TIMEOUT.toSeconds(),
                java.util.concurrent.TimeUnit.SECONDS).join();
        return proxy;
    }

    private void forward(NetSocket front, int targetPort) {
        accepted.incrementAndGet();
        front.pause();
        client.connect(targetPort, "127.0.0.1").onSuccess(back -> {
            open.add(front);
            open.add(back);
            front.closeHandler(ignored -> open.remove(front));
            back.closeHandler(ignored -> open.remove(back));
            front.pipeTo(back);
            back.pipeTo(front);
            front.resume();
        }).onFailure(failure -> front.close());
    }

    /** @return the port the proxy listens on */
    public int port() {
        return server.actualPort();
    }

    /** @return how many client connections the proxy accepted so far */
    public int accepted() {
        return accepted.get();
    }

    /** Closes every connection through the proxy, both sides; new connections are still accepted. */
    public void cutAll() {
        open.forEach(NetSocket::close);
    }

    @Override
    public void close() {
        cutAll();
        server.close();
        client.close();
    }
}
