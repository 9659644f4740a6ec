package dev.fencedqueue.llm;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Streams a research job from the research LLM: {@code POST {query, jobId}} answered with an SSE stream
 * of {@code {"percent", "message"}} progress lines and a final {@code {"status": "completed", "summary"}}.
 * Cancelling the returned {@code Multi} closes the HTTP connection at once; so does any failure.
 * With no {@code fq.llm.url} the built-in simulator of this instance is called over HTTP.
 */
@ApplicationScoped
public class ResearchProtocolClient {

    /** Request header carrying the job id, for the server's logs (and the simulator's counters). */
    static final String REQUEST_ID = "X-Request-ID";

    private final LlmConnector connector;
    private final LlmConfig config;
    private final ObjectMapper json;
    private final LocalSimulator simulator;

    public ResearchProtocolClient(LlmConnector connector, LlmConfig config, ObjectMapper json,
            LocalSimulator simulator) {
        this.connector = connector;
        this.config = config;
        this.json = json;
        this.simulator = simulator;
    }

    /**
     * @param query the research query, must not be {@code null}
     * @param jobId the job id, sent along for the LLM's logs
     * @return the LLM's messages in order, at least one of them a summary; fails with {@link LlmException} (or the
     *         transport's exception) when the call cannot be made, answers non-2xx, sends a malformed line, goes
     *         silent for longer than {@code fq.llm.stream.idle-timeout}, or ends its stream without a summary
     */
    public Multi<LlmMessage> research(String query, String jobId) {
        String body;
        try {
            body = json.writeValueAsString(new LlmRequest(query, jobId));
        } catch (JsonProcessingException e) {
            return Multi.createFrom().failure(e);
        }
        return Multi.createFrom().deferred(() -> {
            AtomicBoolean summarized = new AtomicBoolean();
            return connector.open(url(), body, Map.of(REQUEST_ID, jobId))
                    .onItem().transformToMulti(exchange -> SseEvents.of(exchange, "the research LLM").map(this::message))
                    .invoke(message -> summarized.compareAndSet(false, message instanceof LlmMessage.Summary))
                    .onCompletion().call(() -> summarized.get() ? Uni.createFrom().voidItem() : Uni.createFrom()
                            .failure(new LlmException("the research LLM ended its stream without a summary "
                                    + "(`{\"status\": \"completed\", \"summary\": ...}`): the research is incomplete")));
        });
    }

    /**
     * @return the LLM endpoint: {@code fq.llm.url}, or this instance's simulator
     * @throws LlmException when {@code fq.llm.url} is empty and the simulator is off
     */
    public URI url() {
        return config.url().filter(u -> !u.isBlank()).map(URI::create).orElseGet(() -> simulator.url("/research"));
    }

    private LlmMessage message(String data) {
        try {
            return LlmMessage.of(json.readTree(data));
        } catch (JsonProcessingException e) {
            throw ServerText.notJson("malformed LLM line", data);
        }
    }

    /**
     * The request body sent to the LLM. Serialized by Jackson outside the REST layer, so the native image
     * needs its accessors registered for reflection.
     */
    @RegisterForReflection
    record LlmRequest(String query, String jobId) {
    }
}
