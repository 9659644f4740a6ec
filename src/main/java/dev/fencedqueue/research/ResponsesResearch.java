package dev.fencedqueue.research;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongFunction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.Failures;
import dev.fencedqueue.llm.LlmConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.llm.ChatChunk;
import dev.fencedqueue.llm.ContinuationStyle;
import dev.fencedqueue.llm.LlmRefusedException;
import dev.fencedqueue.llm.LlmSpan;
import dev.fencedqueue.llm.ResponseChunks;
import dev.fencedqueue.llm.ResponsesClient;
import dev.fencedqueue.llm.ResponsesClient.ResponseEvent;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.research.ChatContinuation.Opened;
import dev.fencedqueue.worker.JobContext;
import io.opentelemetry.context.Context;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import org.jboss.logging.Logger;
import org.jboss.logging.Logger.Level;

/**
 * A research job in the {@code responses} protocol (OpenAI's Responses API in background mode). The first run creates
 * a background response and commits its id as the job's checkpoint ({@code responseId}) before any of its text;
 * text, reasoning summary and web search progress become fenced {@code progress} events, each carrying the upstream
 * {@code sequenceNumber} and committed in one script with the checkpoint {@code {responseId, sequenceNumber}}, so the
 * checkpoint always names the response and the last sequence number the committed events cover. A run that takes the
 * job over re-attaches to the same response after the last committed
 * sequence number, so nothing is generated twice ({@link Takeover#REATTACH}); when the response can no longer be
 * streamed again (OpenAI refuses one more than about 5 minutes old) it is polled until it ends and the text past the
 * committed part is published as deltas. A response that failed, was cancelled, is gone, or stays {@code queued} past
 * {@code fq.llm.resume.queued-timeout} is given up: the answer is continued in a new response (trailing assistant message
 * with {@code fq.llm.resume.mode=continue}, as vLLM reads it; else by instruction, the seam cleaned), or started over.
 * A server that streams responses without sequence numbers (llama.cpp's server) or cannot retrieve them ({@code 404},
 * {@code 405}, {@code 501}) is served too: its events are numbered locally, which serves within one stream, and its
 * responses are not re-attached to: a takeover continues the answer in a new response ({@link ReattachLog} says so
 * once per model). A zombie only closes its own stream; aborting the job cancels the response upstream (a response
 * without sequence numbers ended with its stream).
 *
 * <p>The {@code responses} protocol's {@link AnswerProtocol}: a whole answer is the output text of a background
 * response; a call's span is {@code chat <model>}, provider {@code openai}. A bean of its own type only: the
 * {@code AnswerProtocol} bean is the one {@link AnswerProtocols} chooses.
 */
@ApplicationScoped
@Typed(ResponsesResearch.class)
public class ResponsesResearch implements AnswerProtocol {

    private static final Logger LOG = Logger.getLogger(ResponsesResearch.class);

    private final ResponsesClient client;
    private final ChatResearch publisher;
    private final LlmConfig config;
    private final ObjectMapper json;
    private final Queues queues;
    private final String queue;
    private final JobTracing tracing;
    private final ReattachLog reattachLog;

    public ResponsesResearch(ResponsesClient client, ChatResearch publisher, LlmConfig config, ObjectMapper json,
            Queues queues, JobTracing tracing, ResearchConfig research) {
        this.tracing = tracing;
        this.client = client;
        this.publisher = publisher;
        this.config = config;
        this.json = json;
        this.queues = queues;
        this.queue = research.queue();
        this.reattachLog = new ReattachLog(client::model, client::url);
    }

    /**
     * @param context the attempt, must not be {@code null}
     * @param query the job's question, must not be {@code null}
     * @return the job's result, as {@link ChatAnswer#result} shapes it; fails as the LLM calls or a fenced write fail
     */
    public Uni<Object> answer(JobContext context, String query) {
        return answer(context, query, true);
    }

    /**
     * @param context the attempt, must not be {@code null}
     * @param query the question, must not be {@code null}
     * @param mayContinue whether the run may continue (re-attach to) the answer earlier runs committed; with
     *        {@code false} the answer is a new response, as a first run's
     * @return the job's result; fails as {@link #answer(JobContext, String)}
     */
    @Override
    public Uni<Object> answer(JobContext context, String query, boolean mayContinue) {
        UpstreamResponse response = new UpstreamResponse(null, false);
        Uni<Opened> opened;
        if (!mayContinue || context.resumePoint().isEmpty()) {
            opened = fresh(context, query, null, response);
        } else {
            opened = context.committedEvents().map(events -> CommittedAnswer.of(events, json))
                    .chain(base -> takeOver(context, query, base, response));
        }
        LlmSpan span = span(context.traceContext());
        return span.around(opened.chain(stream -> publisher.stream(context, stream, span)), false)
                .onFailure().call(failure -> cancelIfAborted(context, response))
                .onCancellation().call(() -> cancelIfAborted(context, response));
    }

    @Override
    public LlmSpan span(Context trace) {
        return LlmSpan.start(tracing, trace, "chat", "openai", client.model(), client.url());
    }

    @Override
    public OptionalLong costMicros(ChatChunk.Usage usage) {
        return publisher.costMicros(usage);
    }

    @Override
    public Uni<AskedText> text(String prompt, String jobId) {
        return client.create(client.request(prompt), jobId).chain(events -> ChatResearch.text(chunksOf(events)));
    }

    @Override
    public Multi<AskedText> draft(String prompt, String jobId) {
        return client.create(client.request(prompt), jobId)
                .onItem().transformToMulti(events -> ChatResearch.draft(chunksOf(events)));
    }

    /** @return the chunks of a response's events, in order */
    private static Multi<ChatChunk> chunksOf(Multi<ResponseEvent> events) {
        return events.onItem().transformToIterable(event -> {
            ChatChunk chunk = ResponseChunks.of(event);
            return chunk == null ? List.<ChatChunk>of() : List.of(chunk);
        });
    }

    private Uni<Opened> takeOver(JobContext context, String query, CommittedAnswer base, UpstreamResponse response) {
        Optional<ObjectNode> checkpoint = context.committedCheckpoint();
        String earlier = checkpoint.map(UpstreamResponse::id).orElse(null);
        if (config.resume().mode() == LlmConfig.ResumeMode.RESTART || earlier == null) {
            return fresh(context, query, Takeover.RESTART, response);
        }
        boolean reattachable = UpstreamResponse.reattachable(checkpoint.get());
        response.created(earlier, reattachable);
        if (!reattachable) {
            return givenUp(context, query, base, response, "its stream had no sequence numbers");
        }
        // The checkpoint is written with each event that carries text (in the same script): its sequence number is
        // the last one committed, of the response it names.
        long after = UpstreamResponse.sequence(checkpoint.get());
        // Where the response stands decides: a response still queued is waited for (up to fq.llm.resume.queued-timeout).
        // Only the retrieval's refusal (404: gone, 405 or 501: no retrieval) is recovered here, not what follows: a
        // server that refuses everything (a bad key) fails the attempt instead of being asked again and again.
        return poll(context, earlier, System.nanoTime(), false)
                .map(retrieved -> "it is " + retrieved.path("status").asText())
                .onFailure(LlmRefusedException.class)
                .recoverWithItem(refusal -> unretrieved((LlmRefusedException) refusal))
                .chain(state -> switch (state) {
                    case "it is in_progress", "it is completed", "it is incomplete" ->
                            reattach(context, query, base, response, after);
                    default -> givenUp(context, query, base, response, state);
                });
    }

    /** @return why a response that could not be retrieved is given up; says so once per model for 404, 405, 501 */
    private String unretrieved(LlmRefusedException refusal) {
        if (refusal.status() == 404 || refusal.status() == 405 || refusal.status() == 501) {
            reattachLog.notRetrieved(refusal.status());
        }
        return "it could not be retrieved: " + Failures.describe(refusal);
    }

    /** Streams the response again after {@code after}, or polls it to its end when it cannot be streamed again. */
    private Uni<Opened> reattach(JobContext context, String query, CommittedAnswer base, UpstreamResponse response,
            long after) {
        String id = response.id();
        return client.reattach(id, after, context.jobId())
                .map(events -> new Opened(Takeover.REATTACH, base, chunks(context, events, after, response),
                        checkpoint(response)))
                .onFailure(LlmRefusedException.class).recoverWithUni(refusal -> {
                    LOG.infof("job %s: response %s cannot be streamed again (%s); polling it until it ends",
                            context.jobId(), id, Failures.describe(refusal));
                    return poll(context, id, System.nanoTime(), true).chain(retrieved -> {
                        String status = retrieved.path("status").asText();
                        return "completed".equals(status) || "incomplete".equals(status)
                                ? Uni.createFrom().item(new Opened(Takeover.REATTACH, base,
                                        ResponseChunks.rest(retrieved, base.text(), base.reasoning(),
                                        config.stream().deltaChars())))
                                : givenUp(context, query, base, response, "it ended " + status);
                    });
                });
    }

    /** Continues the committed answer in a new response, or starts over when there is none or the server refuses. */
    private Uni<Opened> givenUp(JobContext context, String query, CommittedAnswer base, UpstreamResponse response,
            String why) {
        LOG.logf(response.reattachable() ? Level.WARN : Level.INFO, "job %s: response %s cannot be re-attached to "
                + "(%s); continuing the answer in a new response", context.jobId(), response.id(), why);
        if (!base.hasText()) {
            return fresh(context, query, Takeover.RESTART, response);
        }
        ContinuationStyle style = config.resume().mode() == LlmConfig.ResumeMode.CONTINUE ? ContinuationStyle.TRAILING_ASSISTANT
                : ContinuationStyle.INSTRUCTION;
        ObjectNode request = client.continuation(query, base.text(), base.completionTokens(), style);
        return client.create(request, context.jobId()).map(events -> {
            Multi<ChatChunk> chunks = chunks(context, events, -1, response);
            return new Opened(Takeover.CONTINUE, base,
                    style == ContinuationStyle.INSTRUCTION ? SeamCleaner.clean(chunks, base.text()) : chunks,
                    checkpoint(response));
        }).onFailure(LlmRefusedException.class).recoverWithUni(refusal -> {
            LOG.warnf("job %s: the answer starts over: the LLM server refused to continue it (%s)", context.jobId(),
                    Failures.describe(refusal));
            return fresh(context, query, Takeover.RESTART, response);
        });
    }

    private Uni<Opened> fresh(JobContext context, String query, Takeover takeover, UpstreamResponse response) {
        return client.create(client.request(query), context.jobId())
                .map(events -> new Opened(takeover, CommittedAnswer.NONE, chunks(context, events, -1, response),
                        checkpoint(response)));
    }

    /** @return the checkpoint that names the current response and an upstream sequence number of it */
    private LongFunction<ObjectNode> checkpoint(UpstreamResponse response) {
        return sequence -> response.checkpoint(sequence, json);
    }

    /**
     * @return the chunks of the events after {@code after}; a {@code response.created} commits the response id as the
     *         checkpoint first (so a takeover can re-attach, or knows it must not), a failed or cancelled response
     *         fails the stream
     */
    private Multi<ChatChunk> chunks(JobContext context, Multi<ResponseEvent> events, long after,
            UpstreamResponse response) {
        return events.select().where(event -> event.sequence() > after)
                .onItem().call(event -> {
                    if (!"response.created".equals(event.type())) {
                        return Uni.createFrom().voidItem();
                    }
                    reattachLog.streamed(!event.numberedLocally());
                    response.created(event.data().path("response").path("id").asText(), !event.numberedLocally());
                    return context.checkpoint(response.checkpoint(event.sequence(), json));
                })
                .onItem().transformToIterable(event -> {
                    ChatChunk chunk = ResponseChunks.of(event);
                    return chunk == null ? List.<ChatChunk>of() : List.of(chunk);
                });
    }

    /**
     * Retrieves the response every {@code fq.llm.resume.poll-interval} until it left {@code queued} (and, with
     * {@code toTheEnd}, ended), or stayed {@code queued} past {@code fq.llm.resume.queued-timeout}.
     *
     * @return the response object as last retrieved; fails with {@link LlmRefusedException} when it is gone
     */
    private Uni<JsonNode> poll(JobContext context, String responseId, long queuedSince, boolean toTheEnd) {
        return client.retrieve(responseId, context.jobId()).chain(response -> {
            String status = response.path("status").asText();
            boolean queued = "queued".equals(status);
            boolean stuck = queued && System.nanoTime() - queuedSince > config.resume().queuedTimeout().toNanos();
            if (stuck || !queued && !(toTheEnd && "in_progress".equals(status))) {
                return Uni.createFrom().item(response);
            }
            long since = queued ? queuedSince : System.nanoTime();
            return Uni.createFrom().voidItem().onItem().delayIt().by(config.resume().pollInterval())
                    .chain(() -> poll(context, responseId, since, toTheEnd));
        });
    }

    /**
     * Aborting the job cancels its response upstream; a zombie or a run handed back leaves it to the next run. A
     * response without sequence numbers is no background response: it ended when its stream was closed.
     */
    private Uni<Void> cancelIfAborted(JobContext context, UpstreamResponse response) {
        String responseId = response.id();
        if (responseId == null || !response.reattachable() || context.cancelReason().isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        Uni<Void> cancelling = queues.queue(queue).getJob(context.jobId())
                .chain(job -> job != null && job.state() == JobState.ABORTED
                        ? client.cancel(responseId, context.jobId()).invoke(ignored -> LOG.infof(
                                "job %s was aborted: its response %s was cancelled", context.jobId(), responseId))
                                .replaceWithVoid()
                        : Uni.createFrom().voidItem())
                .onFailure().recoverWithUni(failure -> {
                    LOG.warnf("job %s: could not cancel its response %s: %s", context.jobId(), responseId,
                            Failures.describe(failure));
                    return Uni.createFrom().voidItem();
                })
                .memoize().indefinitely();
        cancelling.subscribe().with(ignored -> {
        }); // started here: cancelling the attempt's pipeline must not cancel the cancellation
        return cancelling;
    }
}
