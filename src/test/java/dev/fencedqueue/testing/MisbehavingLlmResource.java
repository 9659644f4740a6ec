package dev.fencedqueue.testing;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

/**
 * A real OpenAI-compatible LLM server for a Quarkus test run ({@code POST /v1/chat/completions} on a free loopback
 * port) that misbehaves as the research query asks: {@code reset-mid-stream} (two chunks, then the connection is
 * reset), {@code malformed-line} (a data line that is not JSON), {@code stall} (one chunk, then silence),
 * {@code no-finish-reason} (two chunks and {@code [DONE]}, no chunk with a {@code finish_reason}), {@code no-done} (two
 * chunks, then the response ends without {@code [DONE]}), {@code status-500} and {@code status-429} (before the first
 * byte). Points {@code fq.llm.url} at it with {@code
 * fq.llm.protocol=openai}; always stops it.
 */
public class MisbehavingLlmResource implements QuarkusTestResourceLifecycleManager {

    private static final String CHUNK = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\","
            + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word \"},\"finish_reason\":null}]}\n\n";

    private Vertx vertx;

    @Override
    public Map<String, String> start() {
        vertx = Vertx.vertx();
        HttpServer server = vertx.createHttpServer().requestHandler(request -> request.body()
                .onSuccess(body -> misbehave(request, body.toString())));
        int port = server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture()
                .orTimeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).join().actualPort();
        return Map.of("fq.llm.protocol", "openai", "fq.llm.url", "http://127.0.0.1:" + port, "fq.llm.model", "m");
    }

    private void misbehave(HttpServerRequest request, String body) {
        var response = request.response();
        if (body.contains("status-500")) {
            response.setStatusCode(500).end("{\"error\":{\"message\":\"the model crashed\"}}");
        } else if (body.contains("status-429")) {
            response.setStatusCode(429).putHeader("Retry-After", "0").end("{\"error\":{\"message\":\"slow down\"}}");
        } else {
            response.setChunked(true).putHeader("Content-Type", "text/event-stream").write(CHUNK);
            if (body.contains("reset-mid-stream")) {
                response.write(CHUNK).onComplete(written -> request.connection().close());
            } else if (body.contains("malformed-line")) {
                response.write("data: {\"choices\": [not json\n\n");
            } else if (body.contains("no-finish-reason")) {
                response.write(CHUNK).compose(written -> response.end("data: [DONE]\n\n"));
            } else if (body.contains("no-done")) {
                response.write(CHUNK).compose(written -> response.end());
            }
            // stall: nothing more, the connection stays open until the client gives up
        }
    }

    @Override
    public void stop() {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .join();
        }
    }
}
