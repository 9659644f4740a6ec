package dev.fencedqueue.api.admin;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.api.AbortResponse;
import dev.fencedqueue.api.BulkJobViews;
import dev.fencedqueue.api.InvalidParameterException;
import dev.fencedqueue.api.JobEventViews;
import dev.fencedqueue.api.JobStatusView;
import dev.fencedqueue.api.StrictBody;
import dev.fencedqueue.bulk.BulkControl;
import dev.fencedqueue.bulk.Throttle;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.events.JobHistory;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.JobStateConflictException;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.flow.FlowReader;
import dev.fencedqueue.redis.SharedConnection;
import io.quarkus.resteasy.reactive.jackson.CustomDeserialization;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * The operator API's job-level reads and actions, on any queue. HTTP Basic, role {@code admin}. Finished jobs are read
 * from Redis within {@code fq.archive.grace} of their end and from the archive after it, transparently; an archived job
 * is shown with {@code "archived": true}, and every action on it is refused with 409: it ended, and Redis, where
 * actions apply, no longer holds it.
 */
@Path("/admin/queues/{queue}/jobs")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminJobsResource {

    private static final int MAX_PAGE = 1000;
    private static final int MAX_START = 1_000_000_000;

    private final Queues queues;
    private final FlowReader flows;
    private final ObjectMapper json;
    private final BulkControl bulk;
    private final BulkConfig bulkConfig;
    private final JobHistory history;
    private final BulkJobViews bulkViews;
    private final TracingConfig tracing;
    private final JobPages pages;
    private final JobArchive archive;
    private final SharedConnection redis;

    public AdminJobsResource(Queues queues, FlowReader flows, ObjectMapper json, BulkControl bulk,
            BulkConfig bulkConfig, JobHistory history, BulkJobViews bulkViews, TracingConfig tracing, JobPages pages,
            JobArchive archive, SharedConnection redis) {
        this.pages = pages;
        this.archive = archive;
        this.redis = redis;
        this.flows = flows;
        this.tracing = tracing;
        this.bulkViews = bulkViews;
        this.queues = queues;
        this.json = json;
        this.bulk = bulk;
        this.bulkConfig = bulkConfig;
        this.history = history;
    }

    @GET
    @Operation(summary = "List the jobs of one state, a page at a time", description = "`state` (default waiting): "
            + "waiting, paused, prioritized, delayed, active, completed or failed (aborted jobs are listed with the "
            + "failed ones); `start` (default 0); `count` (default 50, at most 1000). Completed and failed jobs: those "
            + "Redis holds, newest first, then those of the archive (older), each `archived: true`; `total` counts "
            + "both, `archived` how many of them are in the archive. 503 when the archive cannot be read.")
    public Uni<JobPage> list(@RestPath String queue, @RestQuery String state, @RestQuery String start,
            @RestQuery String count) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        JobState listed = AdminParams.state("state", state, JobState.WAITING);
        if (listed == JobState.ABORTED) {
            throw new InvalidParameterException("state", "aborted jobs are listed with the failed ones: use `state=failed`");
        }
        int first = AdminParams.integer("start", start, 0, 0, MAX_START);
        int size = AdminParams.integer("count", count, 50, 1, MAX_PAGE);
        return pages.page(jobQueue, listed, first, size);
    }

    @GET
    @Path("/{jobId}")
    @Operation(summary = "One job: state, fencing token, attempts, progress, result or failure", description = "As "
            + "`GET /research/status`; a chunked job (a fan-out) also shows its committed cursor, chunks and items (from "
            + "its sink), total, "
            + "throttle, pending abort and single-flight key. `traceId` names the job's trace (OpenTelemetry), `traceUrl` "
            + "links to it in the trace UI of `fq.tracing.ui-url`. A job Redis no longer holds is read from the archive, "
            + "with `archived: true`.")
    public Uni<Object> get(@RestPath String queue, @RestPath String jobId) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        Uni<Boolean> inRedis = redis.send(Request.cmd(Command.EXISTS).arg(jobQueue.keys().job(jobId)))
                .map(reply -> reply.toLong() > 0);
        Uni<JobStatusView> view = jobQueue.requireJob(jobId)
                .chain(job -> JobStatusView.withChildren(job, jobQueue, flows, json));
        if (bulkConfig.queue().equals(queue)) {
            return Uni.combine().all().unis(view, bulkViews.of(jobQueue, jobId), inRedis).asTuple().map(all -> {
                ObjectNode merged = json.valueToTree(all.getItem1());
                merged.setAll((ObjectNode) json.valueToTree(all.getItem2()));
                return linked(merged, all.getItem1().traceId(), !all.getItem3());
            });
        }
        return Uni.combine().all().unis(view, inRedis).asTuple()
                .map(both -> linked(both.getItem1(), both.getItem1().traceId(), !both.getItem2()));
    }

    /**
     * @return the view, with {@code traceUrl}: its trace in the trace UI ({@code fq.tracing.ui-url}), when it has one,
     *         and {@code archived: true} when it was read from the archive
     */
    private Object linked(Object view, String traceId, boolean archived) {
        String url = tracing.traceUrl(traceId);
        if (url == null && !archived) {
            return view;
        }
        ObjectNode linked = json.valueToTree(view);
        if (url != null) {
            linked.put("traceUrl", url);
        }
        return archived ? linked.put("archived", true) : linked;
    }

    /**
     * Refuses an action on a job the archive holds: one Redis no longer has is not unknown (404) but ended and moved
     * (409, saying so).
     *
     * @param action the action, failing with {@link JobNotFoundException} when Redis has no such job
     * @param refusal why the action does not apply to an archived job, after "job `id` of queue `q` ended and was
     *        archived: "
     */
    private <T> Uni<T> refusedWhenArchived(Uni<T> action, String queue, String jobId, String refusal) {
        return action.onFailure(JobNotFoundException.class).recoverWithUni(notFound -> archive.find(queue, jobId)
                .map(archived -> {
                    throw archived.<RuntimeException>map(job -> new JobStateConflictException("job `" + jobId
                            + "` of queue `" + queue + "` ended (" + job.job().state().value() + ") and was archived: "
                            + refusal)).orElse((JobNotFoundException) notFound);
                }));
    }

    @GET
    @Path("/{jobId}/events")
    @Operation(summary = "A job's last stored events", description = "The newest `last` (default 20, at most 1000) "
            + "events of the job's stream, those of stale runs included, oldest first; each with `id`, `event`, "
            + "`timestamp` and the event's data.")
    public Uni<List<ObjectNode>> events(@RestPath String queue, @RestPath String jobId, @RestQuery String last) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        int count = AdminParams.integer("last", last, 20, 1, MAX_PAGE);
        return jobQueue.requireJob(jobId).chain(() -> history.all(jobQueue, jobId))
                .map(events -> JobEventViews.of(events.subList(Math.max(0, events.size() - count), events.size()), json));
    }

    @POST
    @Path("/{jobId}/abort")
    @Operation(summary = "Abort a job", description = "A running research job's LLM call is closed within a second; "
            + "a running chunked job (a fan-out) stops at its next chunk boundary, keeping its cursor (202, state "
            + "`aborting`); a waiting or delayed job leaves the queue at once. The job ends `aborted`: never retried, "
            + "but a chunked job can be resumed. 409 when it already ended (archived or not).")
    public Uni<RestResponse<AbortResponse>> abort(@RestPath String queue, @RestPath String jobId) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        if (isChunked(queue)) {
            return refusedWhenArchived(bulk.abort(queue, jobId, bulkConfig.abortFlagTtl(), "aborted by operator"), queue,
                    jobId, "it can no longer be aborted").map(request -> request.atChunkBoundary()
                            ? RestResponse.accepted(new AbortResponse(jobId, "aborting", "active", true))
                            : RestResponse.ok(new AbortResponse(jobId, "aborted", request.previousState().value(), false)));
        }
        return jobQueue.abort(jobId, "aborted by operator").map(result -> RestResponse.ok(
                new AbortResponse(jobId, "aborted", result.previousState().value(), result.wasRunning())));
    }

    @POST
    @Path("/{jobId}/resume")
    @Operation(summary = "Resume an aborted chunked job", description = "Back to the queue with a fresh count of "
            + "attempts; its next run (a new epoch) continues after the last committed chunk. 409 unless the job is "
            + "an aborted job of a chunked queue.")
    public Uni<JobStatusView> resume(@RestPath String queue, @RestPath String jobId) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        requireChunked(queue, "resumed");
        return refusedWhenArchived(bulk.resume(queue, jobId), queue, jobId, "only an aborted job Redis still holds (within "
                + "`fq.archive.grace` of its end) can be resumed; start a new fan-out instead")
                .chain(() -> jobQueue.requireJob(jobId)).map(job -> JobStatusView.of(job, json));
    }

    @PUT
    @Path("/{jobId}/throttle")
    @Consumes(MediaType.APPLICATION_JSON)
    @CustomDeserialization(StrictBody.class)
    @Operation(summary = "Change a chunked job's throttle", description = "`pauseBetweenChunksMs` and/or "
            + "`maxItemsPerSecond` (null: none); it applies from the job's next chunk, also while it runs. 409 for a "
            + "job that completed or failed, or a queue that is not chunked.")
    public Uni<Throttle> throttle(@RestPath String queue, @RestPath String jobId,
            @Valid @NotNull(message = "the body must be a JSON object with `pauseBetweenChunksMs` and/or "
                    + "`maxItemsPerSecond`") Throttle throttle) {
        AdminParams.queue(queues, queue);
        requireChunked(queue, "throttled");
        return refusedWhenArchived(bulk.setThrottle(queue, jobId, throttle), queue, jobId, "it can no longer be "
                + "throttled").map(state -> throttle.normalized());
    }

    private boolean isChunked(String queue) {
        return bulkConfig.queue().equals(queue);
    }

    private void requireChunked(String queue, String what) {
        if (!isChunked(queue)) {
            throw new JobStateConflictException("only jobs of a chunked queue (" + bulkConfig.queue() + ") can be "
                    + what + ", not jobs of `" + queue + "`");
        }
    }

    @DELETE
    @Path("/{jobId}")
    @Operation(summary = "Remove a job with all its keys", description = "409 while the job is running: abort it first; "
            + "409 for an archived job (the archive drops whole days, `fq.archive.keep-for`).")
    public Uni<AdminResponses.Removed> remove(@RestPath String queue, @RestPath String jobId) {
        return refusedWhenArchived(AdminParams.queue(queues, queue).maintenance().remove(jobId), queue, jobId, "the "
                + "archive keeps finished jobs until their day is dropped (`fq.archive.keep-for`) and removes none one "
                + "by one").map(previous -> new AdminResponses.Removed(jobId, previous.value()));
    }

    @POST
    @Path("/{jobId}/retry")
    @Operation(summary = "Retry a failed job", description = "Back to the queue with a fresh count of attempts; its "
            + "next run is a new epoch. 409 unless the job failed (aborted jobs are never retried) and Redis still holds "
            + "it (an archived job is not retried).")
    public Uni<JobStatusView> retry(@RestPath String queue, @RestPath String jobId) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        return refusedWhenArchived(jobQueue.maintenance().retry(jobId), queue, jobId, "only a failed job Redis still "
                + "holds (within `fq.archive.grace` of its end) can be retried; add it again instead")
                .chain(() -> jobQueue.requireJob(jobId)).map(job -> JobStatusView.of(job, json));
    }
}
