package dev.fencedqueue.research;

import java.util.Map;

import dev.fencedqueue.config.LlmConfig;
import dev.fencedqueue.llm.LlmMessage;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.llm.ResearchProtocolClient;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Answers a question as a job's published output, in the protocol {@code fq.llm.protocol} names. {@code research}:
 * relays each progress line of the research LLM as a fenced {@code progress} event; the summary becomes the result
 * ({@code {"summary": ...}}). {@code openai}: {@link ChatResearch}. {@code responses}: {@link ResponsesResearch}. When
 * the worker cancels the job (its token went stale, it was aborted, the instance stops), the LLM stream is cancelled
 * and its HTTP connection closed.
 */
@ApplicationScoped
public class ResearchAnswers {

    private final ResearchProtocolClient llm;
    private final ChatResearch chat;
    private final ResponsesResearch responses;
    private final LlmConfig config;
    private final JobTracing tracing;

    public ResearchAnswers(ResearchProtocolClient llm, ChatResearch chat, ResponsesResearch responses,
            LlmConfig config, JobTracing tracing) {
        this.tracing = tracing;
        this.llm = llm;
        this.chat = chat;
        this.responses = responses;
        this.config = config;
    }

    /**
     * @param context the attempt, must not be {@code null}
     * @param question the question, must not be {@code null}
     * @param mayContinue whether this run may continue an answer that earlier runs committed ({@code openai} and
     *        {@code responses}; the run then announces {@code resume} itself); {@code false} starts the answer
     * @return the job's result; fails as the LLM call or a fenced write fails
     */
    public Uni<Object> answer(JobContext context, String question, boolean mayContinue) {
        return switch (config.protocol()) {
            case OPENAI -> chat.answer(context, question, mayContinue);
            case RESPONSES -> responses.answer(context, question, mayContinue);
            case RESEARCH -> research(context, question);
        };
    }

    private Uni<Object> research(JobContext context, String question) {
        LlmSpan span = LlmSpan.start(tracing, context.traceContext(), "invoke_agent", null, null, llm.url());
        return span.around(llm.research(question, context.jobId())
                .onItem().transformToUniAndConcatenate(message -> message instanceof LlmMessage.Progress progress
                        ? context.progress(progress.percent(), progress.message()).replaceWith(message)
                        : Uni.createFrom().item(message))
                .select().where(message -> message instanceof LlmMessage.Summary)
                .collect().last() // the client fails a stream without a summary
                .map(summary -> Map.of("summary", ((LlmMessage.Summary) summary).summary())), true);
    }
}
