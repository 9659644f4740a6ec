package dev.fencedqueue.llm;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.Failures;
import io.smallrye.faulttolerance.api.TypedGuard;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.util.TypeLiteral;
import jakarta.inject.Inject;

/**
 * Opens the streaming HTTP call to the LLM server. Opening (until the response headers) is guarded with SmallRye
 * Fault Tolerance's programmatic API, configured from {@code fq.llm.retry.*}:
 * a refused or reset connection, a try that outlives {@code fq.llm.http.open-timeout}, and a {@code 429} or
 * {@code 5xx} answer (but {@code 501 Not Implemented}, which says the server does not offer the request) are retried
 * with exponential backoff, honouring {@code Retry-After}. A streamed call that generates goes through the fleet's budget ({@link CallGate}): then a {@code 429},
 * or a {@code 503} with a time to wait, is not retried here (the whole fleet waits for the server), and a call that
 * still finds the server down after its retries opens the fleet's circuit, which stops every instance calling it;
 * either way its job waits in the queue.
 * Once the headers arrived nothing is retried here: a broken stream fails the
 * attempt, which the queue retries as a new epoch. The response is returned paused, with an idle timeout
 * (Vert.x's, reset by every chunk received) already armed.
 */
@ApplicationScoped
public class LlmConnector {

    /** What a retry treats as the server being unavailable (before any byte arrived). */
    private static final List<Class<? extends Throwable>> UNAVAILABLE = List.of(ConnectException.class,
            HttpClosedException.class, TimeoutException.class, LlmUnavailableException.class);

    private final Vertx vertx;
    private final HttpClient client;
    private final LlmConfig config;
    private final TypedGuard<Uni<LlmExchange>> guard;
    private final CallGate budget;

    /** A connector that spends no fleet budget: for clients made outside CDI (tests of the protocol clients). */
    public LlmConnector(Vertx vertx, LlmConfig config) {
        this(vertx, config, CallGate.NONE);
    }

    /**
     * @param budget what a streamed call that generates goes through: the fleet's budget, pause and circuit
     */
    @Inject
    public LlmConnector(Vertx vertx, LlmConfig config, CallGate budget) {
        this.budget = budget;
        this.vertx = vertx;
        this.config = config;
        LlmConfig.Retry retry = config.retry();
        this.guard = TypedGuard.create(new TypeLiteral<Uni<LlmExchange>>() {
        })
                .withRetry().maxRetries(retry.maxRetries()).retryOn(UNAVAILABLE)
                // Never cut short by time (FT's default is 180 s): every try may take the open timeout, every wait
                // the longest delay; the retry count is the limit.
                .maxDuration((config.http().openTimeout().toMillis() + retry.maxDelay().toMillis()) * (retry.maxRetries() + 1L),
                        ChronoUnit.MILLIS)
                .jitter(0, ChronoUnit.MILLIS)
                .withCustomBackoff().strategy(() -> new RetryAfterBackoff(retry.delay(), retry.maxDelay())).done()
                .done()
                .build();
        // The request's idle timeout stops once the response headers arrive; the connection's idle timeout
        // (reset by every byte read or written) also covers a response body that goes silent.
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
                .setIdleTimeout((int) config.stream().idleTimeout().toMillis()).setIdleTimeoutUnit(TimeUnit.MILLISECONDS),
                new PoolOptions().setHttp1MaxSize(config.http().maxConnections()));
    }

    /**
     * Sends {@code POST url} with a JSON body and waits for the response headers, retrying as the class says.
     *
     * @param url the LLM endpoint, absolute
     * @param body the JSON request body
     * @param headers more request headers (for example {@code Authorization}); their values are never logged
     * @return the open exchange; cancelling the {@code Uni} before it emits resets the request (the
     *         connection closes). Fails with {@link LlmUnavailableException} for a {@code 429} or {@code 5xx}
     *         but {@code 501}, {@link LlmRefusedException} for another {@code 4xx} or a {@code 501}, and
     *         {@link LlmException} for another non-2xx status (the connection is closed), with the transport's
     *         exception when the server cannot be reached, {@link TimeoutException} when no headers came within
     *         {@code fq.llm.http.open-timeout}, each after the retries; and with {@link LlmWaitException} when the call
     *         cannot go on yet: the fleet's LLM budget cannot admit it, or the server asked to wait or is down, for
     *         less than {@code fq.llm.outage.timeout} ({@link CallGate}).
     */
    public Uni<LlmExchange> open(URI url, String body, Map<String, String> headers) {
        return open(HttpMethod.POST, url, body, headers, "text/event-stream");
    }

    /**
     * Sends a request and waits for the response headers, retrying as the class says.
     *
     * @param method the HTTP method
     * @param url the URL, absolute
     * @param body the JSON request body, or {@code null} for none
     * @param headers more request headers; their values are never logged
     * @param accept the {@code Accept} header: {@code text/event-stream} or {@code application/json}
     * @return the open exchange, failing as {@link #open(URI, String, Map)} says
     */
    public Uni<LlmExchange> open(HttpMethod method, URI url, String body, Map<String, String> headers, String accept) {
        // The span of the LLM call this request belongs to travels in the subscriber's context: its traceparent goes
        // along, so that the server's spans join the job's trace.
        Supplier<Uni<LlmExchange>> call = () -> Uni.createFrom().context(context -> {
            Map<String, String> sent = LlmSpan.inject(context, headers);
            return guard.get(() -> openOnce(method, url, body, sent, accept)
                    .ifNoItem().after(config.http().openTimeout()).failWith(() -> new TimeoutException("no response headers "
                            + "from " + url + " within " + config.http().openTimeout())));
        });
        // A streamed call that generates spends the fleet's budget, for the job its request id names; re-reading a
        // response does not.
        return method == HttpMethod.POST && "text/event-stream".equals(accept)
                ? budget.around(url, body, headers.get(ResearchProtocolClient.REQUEST_ID), call) : call.get();
    }

    /**
     * One try. The request is made from a Vert.x context (the subscriber's event loop, or one Vert.x picks when the
     * subscriber has none, as a fault-tolerance retry has not), so that the response is paused before any of its
     * body is delivered.
     */
    private Uni<LlmExchange> openOnce(HttpMethod method, URI url, String body, Map<String, String> headers,
            String accept) {
        return Uni.createFrom().<LlmExchange>emitter(emitter -> {
            AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
            AtomicBoolean settled = new AtomicBoolean();
            emitter.onTermination(() -> {
                HttpClientRequest request = sent.get();
                if (settled.compareAndSet(false, true) && request != null) {
                    request.reset(); // cancelled before the response arrived
                }
            });
            RequestOptions options = new RequestOptions().setMethod(method).setAbsoluteURI(url.toString())
                    .setConnectTimeout(config.http().connectTimeout().toMillis())
                    .setIdleTimeout(config.stream().idleTimeout().toMillis())
                    .putHeader(HttpHeaders.ACCEPT, accept);
            if (body != null) {
                options.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
            }
            headers.forEach(options::putHeader);
            client.request(options).compose(request -> {
                sent.set(request);
                if (settled.get()) {
                    request.reset();
                }
                return body == null ? request.send() : request.send(Buffer.buffer(body));
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
                    response.exceptionHandler(ignored -> {
                    }); // the reset below is ours: not an error for Vert.x to log
                    response.request().reset();
                    LlmException failure = failure(url, response);
                    emitter.fail(failure instanceof LlmUnavailableException refusal
                            ? budget.refused(refusal, response::getHeader)
                            : failure);
                    return;
                }
                response.pause();
                emitter.complete(LlmExchange.of(response, Vertx.currentContext(), config.stream().idleTimeout()));
            });
        }).runSubscriptionOn(this::onEventLoop);
    }

    /**
     * Sends a request and reads its whole JSON answer.
     *
     * @param method the HTTP method
     * @param url the URL, absolute
     * @param body the JSON request body, or {@code null} for none
     * @param headers more request headers; their values are never logged
     * @return the answer's body; fails as {@link #open(URI, String, Map)} says, and with {@link LlmException} when the
     *         body is not JSON
     */
    public Uni<JsonNode> json(HttpMethod method, URI url, String body,
            Map<String, String> headers, ObjectMapper json) {
        return open(method, url, body, headers, "application/json").chain(exchange -> Uni.createFrom()
                .<Buffer>emitter(emitter -> exchange.onContext(() -> {
                    Throwable broken = exchange.brokenBeforeRead().get();
                    if (broken != null) {
                        emitter.fail(new LlmException("the LLM server at " + url + " closed the connection: "
                                + Failures.describe(broken), broken));
                        return;
                    }
                    exchange.response().body().onSuccess(emitter::complete).onFailure(emitter::fail);
                    exchange.response().resume();
                })))
                .map(buffer -> {
                    try {
                        return json.readTree(buffer.toString());
                    } catch (IOException e) {
                        throw ServerText.notJson("the LLM server at " + url + " answered with a body",
                                buffer.toString());
                    }
                });
    }

    private static LlmException failure(URI url, HttpClientResponse response) {
        int status = response.statusCode();
        String message = "the LLM server at " + url + " answered " + status + " " + response.statusMessage();
        if (status == 429 || status / 100 == 5 && status != 501) { // 501: the server does not offer it, for good
            return new LlmUnavailableException(message, status,
                    RetryAfterBackoff.parse(response.getHeader(HttpHeaders.RETRY_AFTER), Instant.now()));
        }
        if (status / 100 == 4 || status == 501) {
            return new LlmRefusedException(message, status);
        }
        return new LlmException(message);
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
