package dev.fencedqueue.research;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.config.LlmConfig;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import io.vertx.core.parsetools.RecordParser;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Streams a research job from the research LLM: {@code POST {query, jobId}} answered with an SSE stream
 * of {@code {"percent", "message"}} progress lines and a final {@code {"status": "completed", "summary"}}.
 * Cancelling the returned {@code Multi} closes the HTTP connection at once; so does any failure.
 * With no {@code fq.llm.url} the built-in simulator of this instance is called over HTTP.
 */
@ApplicationScoped
public class LlmClient {

    private final LlmConnector connector;
    private final LlmConfig config;
    private final ObjectMapper json;

    public LlmClient(LlmConnector connector, LlmConfig config, ObjectMapper json) {
        this.connector = connector;
        this.config = config;
        this.json = json;
    }

    /**
     * @param query the research query, must not be {@code null}
     * @param jobId the job id, sent along for the LLM's logs
     * @return the LLM's messages in order; fails with {@link LlmException} (or the transport's exception)
     *         when the call cannot be made, answers non-2xx, sends a malformed line or goes silent for
     *         longer than {@code fq.llm.idle-timeout}
     */
    public Multi<LlmMessage> research(String query, String jobId) {
        String body;
        try {
            body = json.writeValueAsString(new LlmRequest(query, jobId));
        } catch (JsonProcessingException e) {
            return Multi.createFrom().failure(e);
        }
        URI url = url();
        return connector.open(url, body).onItem().transformToMulti(exchange -> Multi.createFrom()
                .<LlmMessage>emitter(emitter -> read(exchange, emitter)));
    }

    /** @return the LLM endpoint: {@code fq.llm.url}, or this instance's simulator */
    public URI url() {
        return config.url().filter(u -> !u.isBlank()).map(URI::create).orElseGet(LlmClient::simulatorUrl);
    }

    private void read(LlmExchange exchange, MultiEmitter<? super LlmMessage> emitter) {
        AtomicBoolean ended = new AtomicBoolean();
        AtomicBoolean terminated = new AtomicBoolean();
        emitter.onTermination(() -> {
            terminated.set(true);
            if (!ended.get()) {
                exchange.abort();
            }
        });
        SseDecoder decoder = new SseDecoder(data -> {
            try {
                emitter.emit(LlmMessage.of(json.readTree(data)));
            } catch (JsonProcessingException e) {
                emitter.fail(new LlmException("malformed LLM line, not JSON: " + e.getOriginalMessage()));
            } catch (LlmException e) {
                emitter.fail(e);
            }
        });
        RecordParser parser = RecordParser.newDelimited("\n", exchange.response());
        parser.handler(line -> decoder.line(line.toString(StandardCharsets.UTF_8)));
        parser.exceptionHandler(failure -> {
            if (!terminated.get()) {
                emitter.fail(new LlmException("the research LLM stream broke: " + failure.getMessage(), failure));
            }
        });
        parser.endHandler(ignored -> {
            decoder.end();
            ended.set(true);
            emitter.complete();
        });
        parser.resume();
    }

    private static URI simulatorUrl() {
        String portProperty = LaunchMode.current() == LaunchMode.TEST ? "quarkus.http.test-port" : "quarkus.http.port";
        int port = ConfigProvider.getConfig().getOptionalValue(portProperty, Integer.class).orElse(8080);
        return URI.create("http://127.0.0.1:" + port + "/simulator/research");
    }

    /**
     * The request body sent to the LLM. Serialized by Jackson outside the REST layer, so the native image
     * needs its accessors registered for reflection.
     */
    @RegisterForReflection
    record LlmRequest(String query, String jobId) {
    }
}
