package dev.fencedqueue.research;

import java.util.function.LongFunction;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.Failures;
import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.llm.ChatChunk;
import dev.fencedqueue.llm.ChatCompletionsClient;
import dev.fencedqueue.llm.ContinuationProbe;
import dev.fencedqueue.llm.ContinuationStyle;
import dev.fencedqueue.llm.LlmRefusedException;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Opens the chat completion a run of a research job streams: a fresh answer on the job's first run; on a takeover,
 * per {@code fq.llm.resume.mode}, one that continues the answer earlier runs committed. Continuing tries, in order: a
 * trailing assistant message (with {@code continue}, or with {@code auto} when {@link ContinuationProbe} found that
 * the model continues one), then an instruction to continue (the seam cleaned by {@link SeamCleaner}), then a fresh
 * answer; a step is skipped when the server refuses it ({@link LlmRefusedException}). Other failures (the server
 * unreachable) fail the attempt, which the queue retries.
 */
@ApplicationScoped
public class ChatContinuation {

    private static final Logger LOG = Logger.getLogger(ChatContinuation.class);

    private final ChatCompletionsClient chat;
    private final ContinuationProbe probe;
    private final LlmConfig config;

    public ChatContinuation(ChatCompletionsClient chat, ContinuationProbe probe, LlmConfig config) {
        this.chat = chat;
        this.probe = probe;
        this.config = config;
    }

    /**
     * An opened answer stream.
     *
     * @param takeover how the run went on after a takeover, {@code null} on a job's first run
     * @param base what the stream continues ({@link CommittedAnswer#NONE} when it starts the answer)
     * @param chunks the chunks, to subscribe once
     * @param checkpoint the checkpoint to commit with the event that carries the text up to an upstream sequence
     *        number (Responses API: the response id and that number), or {@code null} for a protocol without them
     */
    public record Opened(Takeover takeover, CommittedAnswer base, Multi<ChatChunk> chunks,
            LongFunction<ObjectNode> checkpoint) {

        /** A stream of a protocol without sequence numbers. */
        public Opened(Takeover takeover, CommittedAnswer base, Multi<ChatChunk> chunks) {
            this(takeover, base, chunks, null);
        }

        /** @return whether the stream continues committed text: the run must announce it with {@code resume} */
        public boolean continues() {
            return takeover == Takeover.CONTINUE || takeover == Takeover.REATTACH;
        }
    }

    /**
     * @param query the job's question, must not be {@code null}
     * @param jobId the job id, for the server's logs
     * @param takeover whether this run took the job over from an earlier one (it has a resume point)
     * @param committed what earlier runs committed, {@link CommittedAnswer#NONE} when nothing
     * @return the opened stream, once the server accepted the request; fails as {@link ChatCompletionsClient#open}
     *         says, except for a refusal of a continuation, which falls back as the class says
     */
    public Uni<Opened> open(String query, String jobId, boolean takeover, CommittedAnswer committed) {
        if (!takeover) {
            return fresh(query, jobId, null);
        }
        if (!committed.hasText() || config.resume().mode() == LlmConfig.ResumeMode.RESTART) {
            return fresh(query, jobId, Takeover.RESTART);
        }
        Uni<ContinuationStyle> style = config.resume().mode() == LlmConfig.ResumeMode.CONTINUE
                ? Uni.createFrom().item(ContinuationStyle.TRAILING_ASSISTANT)
                : probe.continuesTrailingAssistant(jobId).map(continues -> continues
                        ? ContinuationStyle.TRAILING_ASSISTANT : ContinuationStyle.INSTRUCTION);
        return style.chain(first -> continuing(query, jobId, committed, first)
                .onFailure(LlmRefusedException.class).recoverWithUni(refusal -> {
                    LOG.infof("job %s: the LLM server refused to continue the answer (%s): %s", jobId, first,
                            Failures.describe(refusal));
                    return first == ContinuationStyle.TRAILING_ASSISTANT
                            ? continuing(query, jobId, committed, ContinuationStyle.INSTRUCTION)
                                    .onFailure(LlmRefusedException.class).recoverWithUni(again -> restart(query, jobId, again))
                            : restart(query, jobId, refusal);
                }));
    }

    private Uni<Opened> continuing(String query, String jobId, CommittedAnswer committed, ContinuationStyle style) {
        ObjectNode request = chat.continuation(query, committed.text(), committed.completionTokens(), style);
        return chat.open(request, jobId).map(chunks -> {
            return new Opened(Takeover.CONTINUE, committed,
                    style == ContinuationStyle.INSTRUCTION ? SeamCleaner.clean(chunks, committed.text()) : chunks);
        });
    }

    private Uni<Opened> restart(String query, String jobId, Throwable refusal) {
        LOG.warnf("job %s: the answer starts over: the LLM server refused to continue it (%s)", jobId,
                Failures.describe(refusal));
        return fresh(query, jobId, Takeover.RESTART);
    }

    private Uni<Opened> fresh(String query, String jobId, Takeover takeover) {
        return chat.open(chat.request(query), jobId).map(chunks -> new Opened(takeover, CommittedAnswer.NONE, chunks));
    }
}
