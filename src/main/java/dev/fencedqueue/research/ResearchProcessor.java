package dev.fencedqueue.research;

import java.util.Map;

import dev.fencedqueue.config.LlmConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.worker.JobContext;
import dev.fencedqueue.worker.JobProcessor;
import dev.fencedqueue.worker.UnrecoverableJobException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The flagship processor, in the protocol {@code fq.llm.protocol} names. {@code research}: sends the job's query to
 * the research LLM and relays each progress line as a fenced {@code progress} event; the summary becomes the job's
 * result ({@code {"summary": ...}}). {@code openai}: {@link ChatResearch}. {@code responses}: {@link ResponsesResearch}. When the worker cancels the job (its token
 * went stale, it was aborted, the instance stops), the LLM stream is cancelled and its HTTP connection closed.
 */
@ApplicationScoped
public class ResearchProcessor implements JobProcessor {

    private final ResearchProtocolClient llm;
    private final ChatResearch chat;
    private final ResponsesResearch responses;
    private final ResearchConfig config;
    private final LlmConfig llmConfig;

    public ResearchProcessor(ResearchProtocolClient llm, ChatResearch chat, ResponsesResearch responses,
            ResearchConfig config, LlmConfig llmConfig) {
        this.llm = llm;
        this.chat = chat;
        this.responses = responses;
        this.config = config;
        this.llmConfig = llmConfig;
    }

    @Override
    public String queue() {
        return config.queue();
    }

    @Override
    public Uni<Object> process(JobContext context) {
        ResearchRequest request = context.data(ResearchRequest.class);
        if (request.query() == null || request.query().isBlank()) {
            throw new UnrecoverableJobException("job `" + context.jobId() + "` has no query");
        }
        return switch (llmConfig.protocol()) {
            case OPENAI -> chat.answer(context, request.query());
            case RESPONSES -> responses.answer(context, request.query());
            case RESEARCH -> research(context, request.query());
        };
    }

    private Uni<Object> research(JobContext context, String query) {
        return llm.research(query, context.jobId())
                .onItem().transformToUniAndConcatenate(message -> message instanceof LlmMessage.Progress progress
                        ? context.progress(progress.percent(), progress.message()).replaceWith(message)
                        : Uni.createFrom().item(message))
                .select().where(message -> message instanceof LlmMessage.Summary)
                .collect().last()
                .onItem().ifNull().failWith(() -> new LlmException("the research LLM ended its stream without a summary"))
                .map(summary -> Map.of("summary", ((LlmMessage.Summary) summary).summary()));
    }
}
