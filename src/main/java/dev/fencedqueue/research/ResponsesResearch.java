package dev.fencedqueue.research;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.config.LlmConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.research.ChatContinuation.Opened;
import dev.fencedqueue.research.ResponsesClient.ResponseEvent;
import dev.fencedqueue.worker.JobContext;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

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
 * {@code fq.llm.queued-timeout} is given up: the answer is continued in a new response (trailing assistant message
 * with {@code fq.llm.resume=continue}, as vLLM reads it; else by instruction, the seam cleaned), or started over.
 * A zombie only closes its own stream; aborting the job cancels the response upstream.
 */
@ApplicationScoped
public class ResponsesResearch {

    private static final Logger LOG = Logger.getLogger(ResponsesResearch.class);
    private static final String RESPONSE_ID = "responseId";
    private static final String SEQUENCE = "sequenceNumber";

    private final ResponsesClient client;
    private final ChatResearch publisher;
    private final LlmConfig config;
    private final ObjectMapper json;
    private final Queues queues;
    private final String queue;
    private final JobTracing tracing;

    public ResponsesResearch(ResponsesClient client, ChatResearch publisher, LlmConfig config, ObjectMapper json,
            Queues queues, ResearchConfig research) {
        this.tracing = queues.tracing();
        this.client = client;
        this.publisher = publisher;
        this.config = config;
        this.json = json;
        this.queues = queues;
        this.queue = research.queue();
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
    public Uni<Object> answer(JobContext context, String query, boolean mayContinue) {
        AtomicReference<String> responseId = new AtomicReference<>();
        Uni<Opened> opened;
        if (!mayContinue || context.resumePoint().isEmpty()) {
            opened = fresh(context, query, null, responseId);
        } else {
            opened = context.committedEvents().map(events -> CommittedAnswer.of(events, json))
                    .chain(base -> takeOver(context, query, base, responseId));
        }
        LlmSpan span = LlmSpan.start(tracing, context.traceContext(), "chat", "openai", client.model(), client.url());
        return span.around(opened.chain(stream -> publisher.stream(context, stream, span)), false)
                .onFailure().call(failure -> cancelIfAborted(context, responseId.get()))
                .onCancellation().call(() -> cancelIfAborted(context, responseId.get()));
    }

    private Uni<Opened> takeOver(JobContext context, String query, CommittedAnswer base,
            AtomicReference<String> responseId) {
        Optional<ObjectNode> checkpoint = context.committedCheckpoint();
        String earlier = checkpoint.map(state -> state.path(RESPONSE_ID).asText(null)).orElse(null);
        if (config.resume() == LlmConfig.Resume.RESTART || earlier == null) {
            return fresh(context, query, Takeover.RESTART, responseId);
        }
        // The checkpoint is written with each event that carries text (in the same script): its sequence number is
        // the last one committed, of the response it names.
        long after = checkpoint.get().path(SEQUENCE).asLong(-1);
        responseId.set(earlier);
        // Where the response stands decides: a response still queued is waited for (up to fq.llm.queued-timeout).
        // Only the retrieval's refusal (404: gone) is recovered here, not what follows: a server that refuses
        // everything (a bad key) fails the attempt instead of being asked again and again.
        return poll(context, earlier, System.nanoTime(), false).map(response -> response.path("status").asText())
                .onFailure(LlmRefusedException.class).recoverWithItem(gone -> "gone: " + gone.getMessage())
                .chain(status -> switch (status) {
                    case "in_progress", "completed", "incomplete" -> reattach(context, query, base, responseId, after);
                    default -> givenUp(context, query, base, responseId, "it is " + status);
                });
    }

    /** Streams the response again after {@code after}, or polls it to its end when it cannot be streamed again. */
    private Uni<Opened> reattach(JobContext context, String query, CommittedAnswer base,
            AtomicReference<String> responseId, long after) {
        String id = responseId.get();
        return client.reattach(id, after, context.jobId())
                .map(events -> new Opened(Takeover.REATTACH, base, chunks(context, events, after, responseId),
                        checkpoint(responseId)))
                .onFailure(LlmRefusedException.class).recoverWithUni(refusal -> {
                    LOG.infof("job %s: response %s cannot be streamed again (%s); polling it until it ends",
                            context.jobId(), id, refusal.getMessage());
                    return poll(context, id, System.nanoTime(), true).chain(response -> {
                        String status = response.path("status").asText();
                        return "completed".equals(status) || "incomplete".equals(status)
                                ? Uni.createFrom().item(new Opened(Takeover.REATTACH, base, rest(response, base)))
                                : givenUp(context, query, base, responseId, "it ended " + status);
                    });
                });
    }

    /** Continues the committed answer in a new response, or starts over when there is none or the server refuses. */
    private Uni<Opened> givenUp(JobContext context, String query, CommittedAnswer base,
            AtomicReference<String> responseId, String why) {
        LOG.warnf("job %s: response %s cannot be re-attached to (%s); continuing the answer in a new response",
                context.jobId(), responseId.get(), why);
        if (!base.hasText()) {
            return fresh(context, query, Takeover.RESTART, responseId);
        }
        ContinuationStyle style = config.resume() == LlmConfig.Resume.CONTINUE ? ContinuationStyle.TRAILING_ASSISTANT
                : ContinuationStyle.INSTRUCTION;
        return client.create(client.continuation(query, base, style), context.jobId()).map(events -> {
            Multi<ChatChunk> chunks = chunks(context, events, -1, responseId);
            return new Opened(Takeover.CONTINUE, base,
                    style == ContinuationStyle.INSTRUCTION ? SeamCleaner.clean(chunks, base.text()) : chunks,
                    checkpoint(responseId));
        }).onFailure(LlmRefusedException.class).recoverWithUni(refusal -> {
            LOG.warnf("job %s: the answer starts over: the LLM server refused to continue it (%s)", context.jobId(),
                    refusal.getMessage());
            return fresh(context, query, Takeover.RESTART, responseId);
        });
    }

    private Uni<Opened> fresh(JobContext context, String query, Takeover takeover, AtomicReference<String> responseId) {
        return client.create(client.request(query), context.jobId())
                .map(events -> new Opened(takeover, CommittedAnswer.NONE, chunks(context, events, -1, responseId),
                        checkpoint(responseId)));
    }

    /** @return the checkpoint that names the current response and an upstream sequence number of it */
    private LongFunction<ObjectNode> checkpoint(AtomicReference<String> responseId) {
        return sequence -> json.createObjectNode().put(RESPONSE_ID, responseId.get()).put(SEQUENCE, sequence);
    }

    /**
     * @return the chunks of the events after {@code after}; a {@code response.created} commits the response id as the
     *         checkpoint first (so a takeover can re-attach), a failed or cancelled response fails the stream
     */
    private Multi<ChatChunk> chunks(JobContext context, Multi<ResponseEvent> events, long after,
            AtomicReference<String> responseId) {
        return events.select().where(event -> event.sequence() > after)
                .onItem().call(event -> {
                    if (!"response.created".equals(event.type())) {
                        return Uni.createFrom().voidItem();
                    }
                    String id = event.data().path("response").path("id").asText();
                    responseId.set(id);
                    return context.checkpoint(json.createObjectNode().put(RESPONSE_ID, id).put(SEQUENCE, event.sequence()));
                })
                .onItem().transformToIterable(event -> {
                    ChatChunk chunk = chunk(event);
                    return chunk == null ? List.<ChatChunk>of() : List.of(chunk);
                });
    }

    /** @return the chunk an event stands for, or {@code null} for an event that carries nothing to publish */
    static ChatChunk chunk(ResponseEvent event) {
        JsonNode data = event.data();
        String type = event.type();
        long sequence = event.sequence();
        if (type.equals("response.output_text.delta")) {
            return new ChatChunk(data.path("delta").asText(""), null, null, null, sequence, null);
        }
        if (type.equals("response.reasoning_summary_text.delta")) {
            return new ChatChunk(null, data.path("delta").asText(""), null, null, sequence, null);
        }
        if (type.startsWith("response.") && type.contains("_call.")) { // a tool's progress: web search, file search
            String tool = type.substring("response.".length(), type.indexOf("_call.")).replace('_', ' ');
            return new ChatChunk(null, null, null, null, sequence, tool + ": " + type.substring(type.indexOf("_call.") + 6)
                    .replace('_', ' '));
        }
        if (type.equals("response.completed") || type.equals("response.incomplete")) {
            JsonNode usage = data.path("response").path("usage");
            String reason = type.equals("response.completed") ? "stop"
                    : data.path("response").path("incomplete_details").path("reason").asText("length");
            return new ChatChunk(null, null, "max_output_tokens".equals(reason) ? "length" : reason,
                    usage.isObject() ? new ChatChunk.Usage(usage.path("input_tokens").asLong(),
                            usage.path("output_tokens").asLong(), usage.path("total_tokens").asLong()) : null,
                    sequence, null);
        }
        if (type.equals("response.failed") || type.equals("response.cancelled")) {
            throw new LlmException("the LLM server's response ended as " + type.substring("response.".length()) + ": "
                    + data.path("response").path("error").path("message").asText("no reason given"));
        }
        return null;
    }

    /**
     * Retrieves the response every {@code fq.llm.poll-interval} until it left {@code queued} (and, with
     * {@code toTheEnd}, ended), or stayed {@code queued} past {@code fq.llm.queued-timeout}.
     *
     * @return the response object as last retrieved; fails with {@link LlmRefusedException} when it is gone
     */
    private Uni<JsonNode> poll(JobContext context, String responseId, long queuedSince, boolean toTheEnd) {
        return client.retrieve(responseId, context.jobId()).chain(response -> {
            String status = response.path("status").asText();
            boolean queued = "queued".equals(status);
            boolean stuck = queued && System.nanoTime() - queuedSince > config.queuedTimeout().toNanos();
            if (stuck || !queued && !(toTheEnd && "in_progress".equals(status))) {
                return Uni.createFrom().item(response);
            }
            long since = queued ? queuedSince : System.nanoTime();
            return Uni.createFrom().voidItem().onItem().delayIt().by(config.pollInterval())
                    .chain(() -> poll(context, responseId, since, toTheEnd));
        });
    }

    /** @return the text and reasoning of an ended response past the committed part, as chunks, then its usage */
    private Multi<ChatChunk> rest(JsonNode response, CommittedAnswer base) {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        for (JsonNode item : response.path("output")) {
            if ("message".equals(item.path("type").asText())) {
                item.path("content").forEach(part -> text.append(part.path("text").asText("")));
            } else if ("reasoning".equals(item.path("type").asText())) {
                item.path("summary").forEach(part -> reasoning.append(part.path("text").asText("")));
            }
        }
        List<ChatChunk> chunks = new ArrayList<>();
        String newReasoning = reasoning.length() >= base.reasoning().length() ? reasoning.substring(base.reasoning().length()) : "";
        if (!newReasoning.isEmpty()) {
            chunks.add(new ChatChunk(null, newReasoning, null, null));
        }
        String newText = text.length() >= base.text().length() ? text.substring(base.text().length()) : "";
        int step = Math.max(1, config.deltaChars());
        for (int i = 0; i < newText.length(); i += step) {
            chunks.add(new ChatChunk(newText.substring(i, Math.min(newText.length(), i + step)), null, null, null));
        }
        JsonNode usage = response.path("usage");
        chunks.add(new ChatChunk(null, null, "completed".equals(response.path("status").asText()) ? "stop" : "length",
                usage.isObject() ? new ChatChunk.Usage(usage.path("input_tokens").asLong(),
                        usage.path("output_tokens").asLong(), usage.path("total_tokens").asLong()) : null));
        return Multi.createFrom().iterable(chunks);
    }

    /** Aborting the job cancels its response upstream; a zombie or a run handed back leaves it to the next run. */
    private Uni<Void> cancelIfAborted(JobContext context, String responseId) {
        if (responseId == null || context.cancelReason().isEmpty()) {
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
                            failure.getMessage());
                    return Uni.createFrom().voidItem();
                })
                .memoize().indefinitely();
        cancelling.subscribe().with(ignored -> {
        }); // started here: cancelling the attempt's pipeline must not cancel the cancellation
        return cancelling;
    }
}
