package dev.fencedqueue.research;

import java.util.Map;
import java.util.Objects;

import dev.fencedqueue.llm.LlmMessage;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.llm.ResearchProtocolClient;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.worker.JobContext;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * The {@code research} protocol ({@link ResearchProtocolClient}): an answer relays each progress line of the research
 * LLM as a fenced {@code progress} event, and its summary becomes the result ({@code {"summary": ...}}); a run never
 * continues an earlier one's answer. A call's span is {@code invoke_agent}, naming no model.
 */
final class ResearchProtocolAnswers implements AnswerProtocol {

    private final ResearchProtocolClient client;
    private final JobTracing tracing;

    /**
     * @param client the research protocol's client, must not be {@code null}
     * @param tracing the spans of jobs, must not be {@code null}
     */
    ResearchProtocolAnswers(ResearchProtocolClient client, JobTracing tracing) {
        this.client = client;
        this.tracing = tracing;
    }

    @Override
    public Uni<Object> answer(JobContext context, String question, boolean mayContinue) {
        LlmSpan span = span(context.traceContext());
        return span.around(client.research(question, context.jobId())
                .onItem().transformToUniAndConcatenate(message -> message instanceof LlmMessage.Progress progress
                        ? context.progress(progress.percent(), progress.message()).replaceWith(message)
                        : Uni.createFrom().item(message))
                .select().where(message -> message instanceof LlmMessage.Summary)
                .collect().last() // the client fails a stream without a summary
                .map(summary -> Map.of("summary", ((LlmMessage.Summary) summary).summary())), true);
    }

    @Override
    public boolean countsTokens() {
        return false;
    }

    @Override
    public LlmSpan span(Context trace) {
        return LlmSpan.start(tracing, trace, "invoke_agent", null, null, client.url());
    }

    @Override
    public Uni<AskedText> text(String prompt, String jobId) {
        return draft(prompt, jobId).select().where(AskedText::whole).collect().last();
    }

    /** Each progress line of the research LLM as an {@link AskedText#activity}, then its summary (no tokens). */
    @Override
    public Multi<AskedText> draft(String prompt, String jobId) {
        return client.research(prompt, jobId) // the client fails a stream without a summary
                .map(message -> message instanceof LlmMessage.Summary summary
                        ? new AskedText(summary.summary(), null) // counts no tokens
                        : AskedText.activity(Objects.requireNonNullElse(((LlmMessage.Progress) message).message(),
                                "working")));
    }
}
