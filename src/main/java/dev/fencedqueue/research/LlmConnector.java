package dev.fencedqueue.research;

import java.net.ConnectException;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import dev.fencedqueue.config.LlmConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.faulttolerance.Retry;

/**
 * Opens the streaming HTTP call to the research LLM. Opening is guarded by SmallRye Fault Tolerance: a
 * refused connection is retried twice before the attempt fails. The response is returned paused, with
 * an idle timeout (Vert.x's, reset by every chunk received) already armed.
 */
@ApplicationScoped
public class LlmConnector {

    private final Vertx vertx;
    private final HttpClient client;
    private final LlmConfig config;

    public LlmConnector(Vertx vertx, LlmConfig config) {
        this.vertx = vertx;
        this.config = config;
        // The request's idle timeout stops once the response headers arrive; the connection's idle timeout
        // (reset by every byte read or written) also covers a response body that goes silent.
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
                .setIdleTimeout((int) config.idleTimeout().toMillis()).setIdleTimeoutUnit(TimeUnit.MILLISECONDS),
                new PoolOptions().setHttp1MaxSize(config.maxConnections()));
    }

    /**
     * Sends {@code POST url} with a JSON body and waits for the response headers.
     *
     * @param url the LLM endpoint, absolute
     * @param body the JSON request body
     * @return the open exchange; cancelling the {@code Uni} before it emits resets the request (the
     *         connection closes). Fails with {@link LlmException} for a non-2xx status (the connection is
     *         closed) and with the transport's exception when the server cannot be reached. The request is
     *         made from a Vert.x context (the subscriber's event loop, or one Vert.x picks when the subscriber has
     *         none, as a fault-tolerance retry has not), so that the response is paused before any of its body
     *         is delivered.
     */
    @Retry(maxRetries = 2, delay = 250, retryOn = ConnectException.class)
    public Uni<LlmExchange> open(URI url, String body) {
        return Uni.createFrom().<LlmExchange>emitter(emitter -> {
            AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
            AtomicBoolean settled = new AtomicBoolean();
            emitter.onTermination(() -> {
                HttpClientRequest request = sent.get();
                if (settled.compareAndSet(false, true) && request != null) {
                    request.reset(); // cancelled before the response arrived
                }
            });
            RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url.toString())
                    .setConnectTimeout(config.connectTimeout().toMillis())
                    .setIdleTimeout(config.idleTimeout().toMillis())
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .putHeader(HttpHeaders.ACCEPT, "text/event-stream");
            client.request(options).compose(request -> {
                sent.set(request);
                if (settled.get()) {
                    request.reset();
                }
                return request.send(Buffer.buffer(body));
            }).onComplete(result -> {
                if (!settled.compareAndSet(false, true)) {
                    if (result.succeeded()) {
                        result.result().request().reset();
                    }
                    return;
                }
                if (result.failed()) {
                    emitter.fail(result.cause());
                    return;
                }
                HttpClientResponse response = result.result();
                if (response.statusCode() / 100 != 2) {
                    response.request().reset();
                    emitter.fail(new LlmException("the research LLM at " + url + " answered " + response.statusCode()
                            + " " + response.statusMessage()));
                    return;
                }
                response.pause();
                emitter.complete(new LlmExchange(response));
            });
        }).runSubscriptionOn(this::onEventLoop);
    }

    /**
     * Runs {@code task} at once on an event-loop thread, else through {@link Vertx#runOnContext}: from a thread
     * without a Vert.x context (a fault-tolerance timer, a test) that is an event loop Vert.x picks; from a Vert.x
     * worker thread, that worker's context (this service opens no LLM call from one). Opened from a thread without
     * a context, the request would get a context of its own on some event loop, which could deliver the response
     * body before this code, running on the caller's thread, paused it: a short response was then lost
     * ({@code IllegalStateException} when the reader attached).
     */
    private void onEventLoop(Runnable task) {
        if (Context.isOnEventLoopThread()) {
            task.run();
        } else {
            vertx.runOnContext(ignored -> task.run());
        }
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
