package dev.fencedqueue.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.List;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobKey;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.llm.LlmPrices;
import dev.fencedqueue.flow.FlowReader;
import dev.fencedqueue.tracing.JobTracing;
import io.smallrye.mutiny.Uni;

/**
 * The body of {@code GET /research/status/{jobId}}. Times are ms since the epoch (Redis clock).
 *
 * @param jobId the job id
 * @param name the job name
 * @param tenant the tenant the job belongs to ({@code default} when it was added without one, and while tenancy is
 *        off: {@code fq.tenancy.source})
 * @param state {@code waiting}, {@code delayed}, {@code prioritized}, {@code waiting-children}, {@code active},
 *        {@code completed}, {@code failed} or {@code aborted}
 * @param data the job's data
 * @param fencingToken the current fencing token (0 before the first run)
 * @param attempts attempts allowed
 * @param attemptsMade attempts that ended
 * @param attemptsStarted attempts that started
 * @param stalledCounter times the job stalled
 * @param workerId the worker of the latest attempt, or absent
 * @param progress the latest progress ({@code percent}, {@code message}) of the current attempt, or absent; absent
 *        once the job completed (its result says how it ended), kept for a failed or aborted job (where it stopped)
 * @param result the result once completed, or absent
 * @param failedReason why it failed or was aborted (or why its last attempt failed), or absent
 * @param timestamp when it was added
 * @param processedOn when its latest attempt started, or absent
 * @param finishedOn when it ended, or absent
 * @param tokens the LLM tokens its attempts spent, by how each attempt ended ({@code result}, {@code failed},
 *        {@code zombie}: cut off because a newer run took the job, {@code aborted}, {@code handed-back}): each
 *        {@code {"attempts", "promptTokens", "completionTokens"}} and {@code lostCompletionTokens} (of those, the ones
 *        generated after the attempt's last committed event); {@code saved: {"completionTokens"}}, committed tokens
 *        takeovers continued instead of generating them again; {@code takeovers: {"reattach" | "continue" |
 *        "restart": count}}; absent when none were counted
 * @param cost what those tokens cost at the model's prices ({@code fq.llm.price.*}), in the prices' currency (6
 *        decimals at most: counted in micro-units), by the same outcomes: {@code {"result": 0.0042, "zombie": 0.0011}},
 *        and {@code saved}, what the tokens takeovers did not generate again would have cost (not spent); what the job
 *        spent is the sum of the others. Absent when none was counted (no prices were set while its attempts ran)
 * @param parentId a flow's child's parent's id, or absent
 * @param parentQueue that parent's queue, or absent
 * @param children a flow's parent's children (each {@code jobId}, {@code queue}, {@code state} ({@code null} once the
 *        child was removed), {@code result} or {@code failedReason}, {@code pending}: whether the parent still waits
 *        for it), or absent for a job without children (and in lists)
 * @param schedulerId the job scheduler that produced the job, or absent
 * @param tick the scheduler's tick the job was produced for (ms since the epoch), or absent
 * @param traceId the id of the job's trace (OpenTelemetry, 32 hex digits): the trace of the request that added it,
 *        which every attempt joins; absent when tracing was off when it was added
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobStatusView(String jobId, String name, String tenant, String state, JsonNode data, long fencingToken, int attempts,
        int attemptsMade, int attemptsStarted, int stalledCounter, String workerId, JsonNode progress,
        JsonNode result, String failedReason, long timestamp, Long processedOn, Long finishedOn, JsonNode tokens,
        JsonNode cost, String parentId, String parentQueue, List<Child> children, String schedulerId, Long tick,
        String traceId) {

    /**
     * One child of a flow's parent.
     *
     * @param jobId its id
     * @param queue its queue
     * @param state its state, {@code null} once it was removed
     * @param result its result once completed, or absent
     * @param failedReason why it failed or was aborted, or absent
     * @param pending whether the parent still waits for it
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Child(String jobId, String queue, String state, JsonNode result, String failedReason,
            boolean pending) {
    }

    /**
     * @param job the job, must not be {@code null}
     * @param json parses the job's JSON fields
     * @return the view of the job
     */
    public static JobStatusView of(Job job, ObjectMapper json) {
        JobKey parent = job.parentKey() == null ? null : JobKey.parse(job.parentKey());
        return new JobStatusView(job.id(), job.name(), job.tenant(), job.state().value(), parse(json, job.data()), job.fencingToken(),
                job.attempts(), job.attemptsMade(), job.attemptsStarted(), job.stalledCounter(), job.workerId(),
                job.state() == JobState.COMPLETED ? null : parse(json, job.progress()), parse(json, job.returnValue()),
                job.failedReason(), job.timestamp(),
                job.processedOn(), job.finishedOn(), tokens(job, json), cost(job, json), parent == null ? null : parent.jobId(),
                parent == null ? null : parent.queue(), null, job.schedulerId(), job.tick(),
                JobTracing.traceId(job.traceParent()));
    }

    /**
     * @param children the job's children, as {@link FlowReader#children} reads them
     * @param json parses their results
     * @return this view with its children, or as it is when there are none
     */
    public JobStatusView withChildren(List<FlowReader.Child> children, ObjectMapper json) {
        if (children.isEmpty()) {
            return this;
        }
        List<Child> views = children.stream().map(child -> new Child(child.jobId(), child.queue(),
                child.state() == null ? null : child.state().value(), parse(json, child.returnValue()),
                child.failedReason(), child.pending())).toList();
        return new JobStatusView(jobId, name, tenant, state, data, fencingToken, attempts, attemptsMade, attemptsStarted,
                stalledCounter, workerId, progress, result, failedReason, timestamp, processedOn, finishedOn, tokens,
                cost, parentId, parentQueue, views, schedulerId, tick, traceId);
    }

    /**
     * @param job the job, must not be {@code null}
     * @param queue its queue
     * @param flows reads its children
     * @param json parses the job's JSON fields
     * @return the view of the job with its children (one more read)
     */
    public static Uni<JobStatusView> withChildren(Job job, JobQueue queue, FlowReader flows, ObjectMapper json) {
        return flows.children(queue.keys(), job.id()).map(children -> of(job, json).withChildren(children, json));
    }

    private static JsonNode tokens(Job job, ObjectMapper json) {
        if (job.tokens().isEmpty()) {
            return null;
        }
        ObjectNode byOutcome = json.createObjectNode();
        job.tokens().forEach((field, count) -> {
            int colon = field.lastIndexOf(':');
            String kind = field.substring(colon + 1);
            String name = switch (kind) {
                case "prompt" -> "promptTokens";
                case "completion" -> "completionTokens";
                case "lost" -> "lostCompletionTokens";
                default -> kind;
            };
            ObjectNode outcome = byOutcome.has(field.substring(0, colon)) ? (ObjectNode) byOutcome.get(field.substring(0, colon))
                    : byOutcome.putObject(field.substring(0, colon));
            outcome.put(name, count);
        });
        return byOutcome;
    }

    private static JsonNode cost(Job job, ObjectMapper json) {
        if (job.cost().isEmpty()) {
            return null;
        }
        ObjectNode byOutcome = json.createObjectNode();
        job.cost().forEach((outcome, micros) -> byOutcome.put(outcome, LlmPrices.units(micros)));
        return byOutcome;
    }

    static JsonNode parse(ObjectMapper json, String text) {
        if (text == null) {
            return null;
        }
        try {
            return json.readTree(text);
        } catch (IOException e) {
            return json.getNodeFactory().textNode(text);
        }
    }
}
