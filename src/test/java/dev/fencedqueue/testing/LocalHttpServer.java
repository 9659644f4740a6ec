package dev.fencedqueue.testing;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A local HTTP server for the tests of an HTTP client (the LLM clients): before each test it listens on a free port of
 * 127.0.0.1, on the service's Vert.x, records every request it is sent (an {@link Exchange}) and has the test's
 * {@link Handler} answer it; after each test it is closed, whether the test passed or not (after the test's own
 * {@code @AfterEach} methods, so that the clients a test closes there are closed before their server). Declare it after
 * the injected {@code Vertx}:
 *
 * <pre>{@code
 * @Inject
 * Vertx vertx;
 *
 * @RegisterExtension
 * final LocalHttpServer server = new LocalHttpServer(() -> vertx, this::serve);
 * }</pre>
 */
public final class LocalHttpServer implements BeforeEachCallback, AfterEachCallback {

    /**
     * What the server saw of one request.
     *
     * @param path the request's path
     * @param nth how many requests for this path the server was sent in this test, this one included (1 for the first)
     * @param headers the request's headers, their names in lower case
     * @param body completes with the request's body once it was read
     * @param ended completes once the server wrote the last part of its response
     * @param closed completes once the request's connection closed
     */
    public record Exchange(String path, int nth, Map<String, String> headers, CompletableFuture<String> body,
            CompletableFuture<Void> ended, CompletableFuture<Void> closed) {
    }

    /** Answers the requests of one test. */
    @FunctionalInterface
    public interface Handler {

        /**
         * Answers a request, on the server's event loop (it must not block).
         *
         * @param request the request, whose response it writes
         * @param exchange what the server records of the request
         */
        void serve(HttpServerRequest request, Exchange exchange);
    }

    private final Supplier<Vertx> vertx;
    private final Handler handler;
    private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private HttpServer server;

    /**
     * @param vertx the Vert.x the server runs on, read before each test (the test's injected one); must not be
     *        {@code null}
     * @param handler answers every request; must not be {@code null}
     */
    public LocalHttpServer(Supplier<Vertx> vertx, Handler handler) {
        this.vertx = vertx;
        this.handler = handler;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        exchanges.clear();
        requests.clear();
        server = vertx.get().createHttpServer().requestHandler(this::record);
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (server != null) {
            HttpServer closing = server;
            server = null;
            closing.close().toCompletionStage().toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** @return {@code http://127.0.0.1:<port><path>}, a URL of this server (while a test runs) */
    public String url(String path) {
        return "http://127.0.0.1:" + server.actualPort() + path;
    }

    /** @return every request the server was sent in this test so far, in the order they came */
    public List<Exchange> exchanges() {
        return List.copyOf(exchanges);
    }

    /** @return the first request for {@code path}, once the server was sent one (within {@link Timeouts#TIMEOUT}) */
    public Exchange exchange(String path) {
        return await().atMost(TIMEOUT).until(
                () -> exchanges.stream().filter(e -> e.path().equals(path)).findFirst().orElse(null), e -> e != null);
    }

    /** @return how many requests for {@code path} the server was sent in this test so far */
    public int requests(String path) {
        AtomicInteger count = requests.get(path);
        return count == null ? 0 : count.get();
    }

    private void record(HttpServerRequest request) {
        Map<String, String> headers = new ConcurrentHashMap<>();
        request.headers().forEach(header -> headers.put(header.getKey().toLowerCase(), header.getValue()));
        int nth = requests.computeIfAbsent(request.path(), p -> new AtomicInteger()).incrementAndGet();
        Exchange exchange = new Exchange(request.path(), nth, headers, new CompletableFuture<>(),
                new CompletableFuture<>(), new CompletableFuture<>());
        exchanges.add(exchange);
        request.connection().closeHandler(ignored -> exchange.closed().complete(null));
        request.body().onSuccess(body -> exchange.body().complete(body.toString()));
        request.response().bodyEndHandler(ignored -> exchange.ended().complete(null));
        handler.serve(request, exchange);
    }
}
