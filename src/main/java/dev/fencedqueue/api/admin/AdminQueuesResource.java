package dev.fencedqueue.api.admin;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import dev.fencedqueue.api.InvalidParameterException;
import dev.fencedqueue.api.StrictBody;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.Queues;
import io.quarkus.resteasy.reactive.jackson.CustomDeserialization;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
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

/**
 * The operator API's queue-level reads and maintenance. A queue is a view over Redis keys: any valid queue
 * name can be operated on, whether this instance serves it or not. HTTP Basic, role {@code admin}.
 */
@Path("/admin/queues")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminQueuesResource {

    private static final Set<JobState> CLEANABLE = EnumSet.of(JobState.COMPLETED, JobState.FAILED, JobState.WAITING,
            JobState.DELAYED, JobState.PRIORITIZED);
    private static final int MAX_CLEAN = 1_000_000;

    private final Queues queues;
    private final QueueOverview overview;

    public AdminQueuesResource(Queues queues, QueueOverview overview) {
        this.queues = queues;
        this.overview = overview;
    }

    @GET
    @Operation(summary = "The queues of this service", description = "The research queue and the other queues this "
            + "service has a processor for (`served: true`), then the queues jobs were added to over the operator API "
            + "while nothing served them (`served: false`), each with its job counts, paused flag and limits.")
    public Uni<List<QueueView>> list() {
        return overview.list();
    }

    @GET
    @Path("/{queue}")
    @Operation(summary = "A queue's job counts, paused flag and limits", description = "404 when the queue has no "
            + "key in Redis and this instance does not serve it.")
    public Uni<QueueView> get(@RestPath String queue) {
        return overview.requireView(AdminParams.queue(queues, queue));
    }

    @POST
    @Path("/{queue}/pause")
    @Operation(summary = "Pause the queue for the whole fleet", description = "No job starts until it is resumed; "
            + "running jobs go on.")
    public Uni<AdminResponses.Paused> pause(@RestPath String queue) {
        return AdminParams.queue(queues, queue).pause().map(changed -> new AdminResponses.Paused(queue, true, changed));
    }

    @POST
    @Path("/{queue}/resume")
    @Operation(summary = "Resume a paused queue")
    public Uni<AdminResponses.Paused> resume(@RestPath String queue) {
        return AdminParams.queue(queues, queue).resume().map(changed -> new AdminResponses.Paused(queue, false, changed));
    }

    @POST
    @Path("/{queue}/clean")
    @Operation(summary = "Remove old jobs of one state", description = "`state`: completed, failed (aborted "
            + "included), waiting, delayed or prioritized; `grace` (default 0s): jobs younger than that are kept; "
            + "`limit` (default 1000): most jobs removed. Jobs go with all their keys, event streams included.")
    public Uni<AdminResponses.Cleaned> clean(@RestPath String queue, @RestQuery String state, @RestQuery String grace,
            @RestQuery String limit) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        JobState cleaned = AdminParams.state("state", state, null);
        if (!CLEANABLE.contains(cleaned)) {
            throw new InvalidParameterException("state", "`state` must be completed, failed, waiting, delayed or "
                    + "prioritized to clean, was " + state);
        }
        Duration age = AdminParams.duration("grace", grace, Duration.ZERO);
        int most = AdminParams.integer("limit", limit, 1000, 1, MAX_CLEAN);
        return jobQueue.maintenance().clean(cleaned, age, most)
                .map(ids -> new AdminResponses.Cleaned(queue, cleaned.value(), ids.size(), ids));
    }

    @POST
    @Path("/{queue}/drain")
    @Operation(summary = "Remove every job waiting to run", description = "Waiting and prioritized jobs, and delayed "
            + "ones with `delayed=true`; running jobs go on.")
    public Uni<AdminResponses.Drained> drain(@RestPath String queue, @RestQuery String delayed) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        boolean withDelayed = AdminParams.bool("delayed", delayed);
        return jobQueue.maintenance().drain(withDelayed).map(removed -> new AdminResponses.Drained(queue, removed));
    }

    @DELETE
    @Path("/{queue}")
    @Operation(summary = "Obliterate a paused queue", description = "Deletes every key of the queue. 409 when the "
            + "queue is not paused, or has running jobs and `force` is not true.")
    public Uni<AdminResponses.Obliterated> obliterate(@RestPath String queue, @RestQuery String force) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        boolean forced = AdminParams.bool("force", force);
        return jobQueue.maintenance().obliterate(forced).map(deleted -> new AdminResponses.Obliterated(queue, deleted));
    }

    @PUT
    @Path("/{queue}/limits")
    @Consumes(MediaType.APPLICATION_JSON)
    @CustomDeserialization(StrictBody.class)
    @Operation(summary = "Set the queue's fleet-wide limits", description = "Replaces both limits: a null or absent "
            + "`globalConcurrency` or `rateLimit` removes it. Answers the limits now in force.")
    public Uni<QueueLimits> setLimits(@RestPath String queue, QueueLimits limits) {
        JobQueue jobQueue = AdminParams.queue(queues, queue);
        if (limits == null) {
            throw new InvalidParameterException("body", "the body must be a JSON object with `globalConcurrency` and "
                    + "`rateLimit`");
        }
        Integer concurrency = limits.globalConcurrency();
        if (concurrency != null && concurrency < 1) {
            throw new InvalidParameterException("globalConcurrency", "`globalConcurrency` must be at least 1 or null, was "
                    + concurrency);
        }
        QueueLimits.RateLimit rate = limits.rateLimit();
        Integer max = rate == null ? null : rate.max();
        Duration window = rate == null ? null : window(rate);
        if (rate != null && (max == null || max < 1)) {
            throw new InvalidParameterException("rateLimit.max", "`rateLimit.max` must be at least 1, was " + max);
        }
        return Uni.combine().all().unis(jobQueue.setGlobalConcurrency(concurrency), jobQueue.setRateLimit(max, window))
                .discardItems().chain(() -> overview.limits(jobQueue));
    }

    private static Duration window(QueueLimits.RateLimit rate) {
        Duration window = AdminParams.duration("rateLimit.duration", rate.duration(), null);
        if (window == null || window.toMillis() < 1) {
            throw new InvalidParameterException("rateLimit.duration", "`rateLimit.duration` must be at least 1ms, "
                    + "such as 1m, 30s or PT1M, was " + rate.duration());
        }
        return window;
    }
}
