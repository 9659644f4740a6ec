package dev.fencedqueue.research;

import dev.fencedqueue.llm.ChatChunk;
import dev.fencedqueue.llm.ChatCompletionsClient;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.JobContext;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * The {@code openai} protocol (OpenAI-compatible streaming chat completions, {@link ChatCompletionsClient}): an answer
 * is {@link ChatResearch}'s, which a run that took the job over may continue; a whole answer is the streamed content.
 * A call's span is {@code chat <model>}, provider {@code openai}.
 */
final class ChatCompletionsAnswers implements AnswerProtocol {

    private final ChatResearch research;
    private final ChatCompletionsClient client;
    private final JobTracing tracing;

    /**
     * @param research the answers published as a job's events, must not be {@code null}
     * @param client the chat completions client, must not be {@code null}
     * @param tracing the spans of jobs, must not be {@code null}
     */
    ChatCompletionsAnswers(ChatResearch research, ChatCompletionsClient client, JobTracing tracing) {
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
        return text(client.stream(prompt, jobId));
    }

    /**
     * @param chunks an answer's chunks, must not be {@code null}
     * @return their content, concatenated, once they completed; fails as they fail
     */
    static Uni<String> text(Multi<ChatChunk> chunks) {
        return chunks.collect().in(StringBuilder::new, (text, chunk) -> {
            if (chunk.content() != null) {
                text.append(chunk.content());
            }
        }).map(StringBuilder::toString);
    }
}
