package dev.fencedqueue.research;

import java.util.List;

import dev.fencedqueue.config.LlmConfig;
import dev.fencedqueue.llm.ChatChunk;
import dev.fencedqueue.llm.ChatCompletionsClient;
import dev.fencedqueue.llm.LlmException;
import dev.fencedqueue.llm.LlmMessage;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.llm.ResearchProtocolClient;
import dev.fencedqueue.llm.ResponseChunks;
import dev.fencedqueue.llm.ResponsesClient;
import dev.fencedqueue.tracing.JobTracing;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Asks the LLM one prompt, in the protocol {@code fq.llm.protocol} names, and returns its whole answer as text,
 * published nowhere: a step of a job whose output is not that text (a deep research job's plan). {@code research}:
 * the {@code summary}; {@code openai}: the streamed content; {@code responses}: the output text of a background
 * response. Cancelling the returned {@code Uni} closes the LLM's stream.
 */
@ApplicationScoped
public class WholeAnswer {

    private final LlmConfig config;
    private final ResearchProtocolClient research;
    private final ChatCompletionsClient chat;
    private final ResponsesClient responses;
    private final JobTracing tracing;

    public WholeAnswer(LlmConfig config, ResearchProtocolClient research, ChatCompletionsClient chat,
            ResponsesClient responses, JobTracing tracing) {
        this.tracing = tracing;
        this.config = config;
        this.research = research;
        this.chat = chat;
        this.responses = responses;
    }

    /**
     * @param prompt the prompt, sent as the user's question, must not be {@code null}
     * @param jobId the job that asks, sent as {@code X-Request-ID} for the server's logs
     * @param trace the asking attempt's context ({@code JobContext.traceContext()}): the call's span is its child
     * @return the answer's text, never {@code null}; fails with {@link LlmException} when the LLM ends without an
     *         answer (or fails it), and as the protocol's client says when the call cannot be made
     */
    public Uni<String> ask(String prompt, String jobId, Context trace) {
        LlmSpan span = switch (config.protocol()) {
            case RESEARCH -> LlmSpan.start(tracing, trace, "invoke_agent", null, null, research.url());
            case OPENAI -> LlmSpan.start(tracing, trace, "chat", "openai", chat.model(), chat.url());
            case RESPONSES -> LlmSpan.start(tracing, trace, "chat", "openai", responses.model(), responses.url());
        };
        return span.around(answer(prompt, jobId), true);
    }

    private Uni<String> answer(String prompt, String jobId) {
        return switch (config.protocol()) {
            case RESEARCH -> research.research(prompt, jobId)
                    .select().where(message -> message instanceof LlmMessage.Summary)
                    .collect().last() // the client fails a stream without a summary
                    .map(summary -> ((LlmMessage.Summary) summary).summary());
            case OPENAI -> text(chat.stream(prompt, jobId));
            case RESPONSES -> responses.create(responses.request(prompt), jobId)
                    .chain(events -> text(events.onItem().transformToIterable(event -> {
                        ChatChunk chunk = ResponseChunks.of(event);
                        return chunk == null ? List.<ChatChunk>of() : List.of(chunk);
                    })));
        };
    }

    private static Uni<String> text(Multi<ChatChunk> chunks) {
        return chunks.collect().in(StringBuilder::new, (text, chunk) -> {
            if (chunk.content() != null) {
                text.append(chunk.content());
            }
        }).map(StringBuilder::toString);
    }
}
