package dev.fencedqueue.research;

import java.util.List;

import dev.fencedqueue.llm.ChatChunk;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.llm.ResponseChunks;
import dev.fencedqueue.llm.ResponsesClient;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.JobContext;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Uni;

/**
 * The {@code responses} protocol (OpenAI's Responses API in background mode, {@link ResponsesClient}): an answer is
 * {@link ResponsesResearch}'s, which a run that took the job over re-attaches to; a whole answer is the output text
 * of a background response. A call's span is {@code chat <model>}, provider {@code openai}.
 */
final class ResponsesAnswers implements AnswerProtocol {

    private final ResponsesResearch research;
    private final ResponsesClient client;
    private final JobTracing tracing;

    /**
     * @param research the answers published as a job's events, must not be {@code null}
     * @param client the Responses API client, must not be {@code null}
     * @param tracing the spans of jobs, must not be {@code null}
     */
    ResponsesAnswers(ResponsesResearch research, ResponsesClient client, JobTracing tracing) {
        this.research = research;
        this.client = client;
        this.tracing = tracing;
    }

    @Override
    public Uni<Object> answer(JobContext context, String question, boolean mayContinue) {
        return research.answer(context, question, mayContinue);
    }

    @Override
    public LlmSpan span(Context trace) {
        return LlmSpan.start(tracing, trace, "chat", "openai", client.model(), client.url());
    }

    @Override
    public Uni<String> text(String prompt, String jobId) {
        return client.create(client.request(prompt), jobId)
                .chain(events -> ChatCompletionsAnswers.text(events.onItem().transformToIterable(event -> {
                    ChatChunk chunk = ResponseChunks.of(event);
                    return chunk == null ? List.<ChatChunk>of() : List.of(chunk);
                })));
    }
}
