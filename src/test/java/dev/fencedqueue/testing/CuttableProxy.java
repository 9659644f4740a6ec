package dev.fencedqueue.testing;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;

import java.nio.charset.StandardCharsets;
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
 * A TCP proxy on a free loopback port in front of a local server, whose connections a test can cut, as a
 * load balancer's idle timeout or a network blip would; which can answer new connections itself with
 * {@code 503 Service Unavailable}, as an ingress does while no pod is ready, or close them at once, as a
 * partitioned network would; and which can send new connections to another server, as a failover behind a
 * virtual IP or a DNS name does. Bytes are piped both ways unchanged (Vert.x {@code NetSocket.pipeTo}, with
 * back-pressure).
 */
public final class CuttableProxy implements AutoCloseable {

    private final NetServer server;
    private final NetClient client;
    private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    /** Client connection to its server side, for the client connections forwarded and still open. */
    private final java.util.Map<NetSocket, NetSocket> pairs = new ConcurrentHashMap<>();
    private volatile boolean refusing;
    private volatile boolean dropping;
    private volatile boolean frozen;
    private volatile int targetPort;
    private volatile byte[] loseReplyMarker;
    private final AtomicInteger lostReplies = new AtomicInteger();

    private CuttableProxy(NetServer server, NetClient client, int targetPort) {
        this.server = server;
        this.client = client;
        this.targetPort = targetPort;
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
        CuttableProxy proxy = new CuttableProxy(server, client, targetPort);
        server.connectHandler(proxy::accept);
        try {
            server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture()
                    .orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
        return proxy;
    }

    private void accept(NetSocket front) {
        accepted.incrementAndGet();
        if (dropping) {
            front.close();
            return;
        }
        open.add(front);
        front.closeHandler(ignored -> open.remove(front));
        if (frozen) {
            front.pause();
        }
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
            pairs.put(front, back);
            front.closeHandler(ignored -> {
                open.remove(front);
                pairs.remove(front);
            });
            forward(front, back);
            back.pipeTo(front);
            if (frozen) {
                back.pause();
            } else {
                front.resume();
            }
        }).onFailure(failure -> front.close());
    }

    /** Client to server: as {@code pipeTo}, and watching for the marker of {@link #loseReplyTo(String)}. */
    private void forward(NetSocket front, NetSocket back) {
        byte[][] tail = {new byte[0]}; // the end of the previous chunk, for a marker split across two
        front.handler(chunk -> {
            back.write(chunk);
            byte[] marker = loseReplyMarker;
            if (marker != null) {
                Buffer seen = Buffer.buffer(tail[0]).appendBuffer(chunk);
                int keep = Math.min(seen.length(), marker.length - 1);
                tail[0] = seen.getBytes(seen.length() - keep, seen.length());
                if (seen.toString(StandardCharsets.ISO_8859_1).contains(new String(marker, StandardCharsets.ISO_8859_1))
                        && marker == loseReplyMarker) {
                    loseReplyMarker = null;
                    lostReplies.incrementAndGet();
                    // The command goes on to the server, which runs it; its client never hears back.
                    front.close();
                    return;
                }
            }
            if (back.writeQueueFull()) {
                front.pause();
                back.drainHandler(ignored -> front.resume());
            }
        });
        front.endHandler(ignored -> back.end());
    }

    /**
     * Arms a one-shot fault: the next client-to-server bytes that contain {@code marker} are forwarded, and then that
     * client's connection is closed, so the server runs the command and its reply is lost on the wire (as when a
     * connection breaks between a command and its reply).
     *
     * @param marker text the command carries (a script's SHA-1, a key)
     */
    public void loseReplyTo(String marker) {
        this.loseReplyMarker = marker.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** @return how many replies {@link #loseReplyTo(String)} lost so far */
    public int lostReplies() {
        return lostReplies.get();
    }

    /**
     * @param refusing {@code true} to answer every new connection with {@code 503} (and close it) instead of
     *        forwarding it; connections already forwarded are left alone
     */
    public void refuse(boolean refusing) {
        this.refusing = refusing;
    }

    /**
     * @param dropping {@code true} to close every new connection at once, as a partition would (cut the open ones
     *        with {@link #cutAll()}); {@code false} to forward them again
     */
    public void drop(boolean dropping) {
        this.dropping = dropping;
    }

    /**
     * @param frozen {@code true} to stop forwarding in both directions while keeping every connection open (bytes wait
     *        in the sockets' buffers), as a stalled network link does; {@code false} to forward them again
     */
    public void freeze(boolean frozen) {
        this.frozen = frozen;
        if (frozen) {
            open.forEach(NetSocket::pause);
        } else {
            open.forEach(NetSocket::resume);
        }
    }

    /**
     * Stops forwarding, in both directions, on the connections open now, keeping them open (a stalled link, or a
     * subscription whose messages no longer arrive); new connections are forwarded as before.
     */
    public void freezeOpen() {
        open.forEach(NetSocket::pause);
    }

    /** @param port the port on 127.0.0.1 that new connections go to from now on; open ones are left alone */
    public void retarget(int port) {
        this.targetPort = port;
    }

    /** @return the port the proxy listens on */
    public int port() {
        return server.actualPort();
    }

    /** @return how many client connections the proxy accepted so far */
    public int accepted() {
        return accepted.get();
    }

    /**
     * Closes some of the connections through the proxy (each client connection with its server side), picked at
     * random, as a flaky network or a load balancer recycling connections does.
     *
     * @param fraction the share of open client connections to cut, 0 to 1
     * @param random where the picks come from
     * @return how many client connections were cut
     */
    public int cutSome(double fraction, java.util.Random random) {
        int cut = 0;
        for (NetSocket socket : open) {
            if (pairs.containsKey(socket) && random.nextDouble() < fraction) {
                NetSocket back = pairs.remove(socket);
                socket.close();
                back.close();
                cut++;
            }
        }
        return cut;
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
