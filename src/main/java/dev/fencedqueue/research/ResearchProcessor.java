package dev.fencedqueue.research;

import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

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
 * result ({@code {"summary": ...}}). {@code openai}: asks an OpenAI-compatible server and publishes the streamed
 * text in batches ({@code fq.llm.delta-interval}, {@code fq.llm.delta-chars}) as fenced {@code progress} events
 * carrying {@code delta} (and {@code reasoningDelta}) and the running {@code completionTokens}; the result is
 * {@link ChatAnswer#result}. When the worker cancels the job (its token went stale, it was aborted, the instance
 * stops), the LLM stream is cancelled and its HTTP connection closed.
 */
@ApplicationScoped
public class ResearchProcessor implements JobProcessor {

    private final ResearchProtocolClient llm;
    private final ChatCompletionsClient chat;
    private final ResearchConfig config;
    private final LlmConfig llmConfig;
    private final ObjectMapper json;
    private final LlmTokens tokens;

    public ResearchProcessor(ResearchProtocolClient llm, ChatCompletionsClient chat, ResearchConfig config, LlmConfig llmConfig,
            ObjectMapper json, LlmTokens tokens) {
        this.tokens = tokens;
        this.llm = llm;
        this.chat = chat;
        this.config = config;
        this.llmConfig = llmConfig;
        this.json = json;
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
        return llmConfig.protocol() == LlmConfig.Protocol.OPENAI ? answer(context, request.query())
                : research(context, request.query());
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

    private Uni<Object> answer(JobContext context, String query) {
        ChatAnswer answer = new ChatAnswer(llmConfig.maxResponseChars(), llmConfig.deltaChars(),
                llmConfig.deltaInterval().toNanos(), System.nanoTime());
        return chat.stream(query, context.jobId())
                .select().first(answer::add) // the size cap: reads no more, which closes the upstream connection
                .onItem().transformToUniAndConcatenate(chunk -> answer.due(System.nanoTime())
                        ? publish(context, answer) : Uni.createFrom().nullItem())
                .collect().last()
                .chain(() -> answer.pending() ? publish(context, answer) : Uni.createFrom().nullItem())
                .map(ignored -> (Object) answer.result(chat.model()))
                .call(() -> account(context, answer, null))
                .onFailure().call(failure -> account(context, answer, failure))
                .onCancellation().invoke(() -> account(context, answer, null));
    }

    /**
     * Counts the attempt's tokens by how it ended, once (a zombie's rejected write both fails its pipeline and gets
     * it cancelled); never fails.
     */
    private Uni<Void> account(JobContext context, ChatAnswer answer, Throwable failure) {
        if (!answer.claimAccounting()) {
            return Uni.createFrom().voidItem();
        }
        ChatChunk.Usage usage = answer.usage();
        // Started here and memoized: cancelling the attempt's pipeline (as the worker does to a zombie) must not
        // cancel the count on its way.
        Uni<Void> recording = tokens.record(queue(), context.jobId(), LlmTokens.outcome(context.cancelReason(), failure),
                usage == null ? 0 : usage.promptTokens(), answer.completionTokens()).memoize().indefinitely();
        recording.subscribe().with(ignored -> {
        });
        return recording;
    }

    private Uni<String> publish(JobContext context, ChatAnswer answer) {
        String[] batch = answer.drain(System.nanoTime());
        long tokens = answer.completionTokens();
        ObjectNode details = json.createObjectNode().put("delta", batch[0]).put("completionTokens", tokens);
        if (!batch[1].isEmpty()) {
            details.put("reasoningDelta", batch[1]);
        }
        int percent = llmConfig.maxTokens().map(max -> (int) Math.min(99, tokens * 100 / max)).orElse(0);
        return context.progress(percent, "answering: " + tokens + " tokens", details);
    }
}
