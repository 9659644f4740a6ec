package dev.fencedqueue.testing;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

/**
 * A TCP proxy on a free loopback port in front of a local HTTP server, whose connections a test can cut, as a
 * load balancer's idle timeout or a network blip would, and which can answer new connections itself with
 * {@code 503 Service Unavailable}, as an ingress does while no pod is ready. Bytes are piped both ways
 * unchanged (Vert.x {@code NetSocket.pipeTo}, with back-pressure).
 */
public final class CuttableProxy implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final NetServer server;
    private final NetClient client;
    private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile boolean refusing;

    private CuttableProxy(NetServer server, NetClient client) {
        this.server = server;
        this.client = client;
    }

    /**
     * @param vertx the Vert.x instance to run on
     * @param targetPort the port of the server on 127.0.0.1 to forward to
     * @return the proxy, listening
     * @throws java.util.concurrent.CompletionException when it cannot listen within 5 s (nothing is left open)
     */
    public static CuttableProxy start(Vertx vertx, int targetPort) {
        NetClient client = vertx.createNetClient();
        NetServer server = vertx.createNetServer();
        CuttableProxy proxy = new CuttableProxy(server, client);
        server.connectHandler(front -> proxy.accept(front, targetPort));
        try {
            server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture()
                    .orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
        return proxy;
    }

    private void accept(NetSocket front, int targetPort) {
        accepted.incrementAndGet();
        open.add(front);
        front.closeHandler(ignored -> open.remove(front));
        if (refusing) {
            // Answer once the request starts to arrive, as a server would.
            front.handler(request -> front.end(Buffer.buffer(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")));
            return;
        }
        front.pause();
        client.connect(targetPort, "127.0.0.1").onSuccess(back -> {
            open.add(back);
            back.closeHandler(ignored -> open.remove(back));
            front.pipeTo(back);
            back.pipeTo(front);
            front.resume();
        }).onFailure(failure -> front.close());
    }

    /**
     * @param refusing {@code true} to answer every new connection with {@code 503} (and close it) instead of
     *        forwarding it; connections already forwarded are left alone
     */
    public void refuse(boolean refusing) {
        this.refusing = refusing;
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

    /** Cuts every connection and stops listening, waiting up to 5 s for the listener to close. */
    @Override
    public void close() {
        cutAll();
        server.close().toCompletionStage().toCompletableFuture().orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .exceptionally(ignored -> null).join();
        client.close();
    }
}
