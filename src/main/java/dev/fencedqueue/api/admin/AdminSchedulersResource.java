package dev.fencedqueue.api.admin;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencedqueue.api.InvalidParameterException;
import dev.fencedqueue.worker.WorkerConfig;
import dev.fencedqueue.scheduler.JobSchedulerView;
import dev.fencedqueue.scheduler.JobSchedulers;
import dev.fencedqueue.worker.WorkerManager;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Job schedulers under {@code /admin/schedulers} (BullMQ's job schedulers): create or change, list, read, remove,
 * pause, resume, run now.
 */
@Path("/admin/schedulers")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminSchedulersResource {

    private final JobSchedulers schedulers;
    private final WorkerManager workers;
    private final AddChecks checks;
    private final Duration minEvery;

    public AdminSchedulersResource(JobSchedulers schedulers, WorkerManager workers, AddChecks checks,
            WorkerConfig config) {
        this.schedulers = schedulers;
        this.workers = workers;
        this.checks = checks;
        this.minEvery = config.scheduler().minEvery();
    }

    @PUT
    @Path("/{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Creates or changes a job scheduler", description = "Body: exactly one of `pattern` (cron, 5 "
            + "or 6 fields, read in `tz`, an IANA time zone, default UTC; one that never matches a date is refused) or "
            + "`every` (ms, at least fq.worker.scheduler.min-every, 1 s by default); optional `startDate`, `endDate` "
            + "(ISO-8601 with an offset), `limit` (ticks), `missed` (`run-once` | `skip`, default), `overlap` (`skip` | "
            + "`refuse`, default); `template`: `{\"queue\", \"name\", \"data\", \"options\"}`, its queue served by "
            + "this service and its data checked as the endpoint that adds such jobs checks it. Each tick produces "
            + "one job, `<id>:<tick>`, fleet-wide. A change applies from now on. 400 naming the field "
            + "(`template.data.chunkSize`).")
    public Uni<JobSchedulerView> upsert(@RestPath String id, JsonNode body) {
        JsonNode template = body == null ? null : body.path("template");
        JsonNode queue = template == null ? null : template.path("queue");
        if (queue != null && queue.isTextual() && !workers.processedQueues().contains(queue.asText())) {
            throw new InvalidParameterException("template.queue", "`template.queue` has no processor in this service "
                    + "(one of " + workers.processedQueues() + "), was " + queue.asText());
        }
        JsonNode every = body == null ? null : body.get("every");
        if (every != null && every.isIntegralNumber() && every.asLong() >= 1 && every.asLong() < minEvery.toMillis()) {
            throw new InvalidParameterException("every", "`every` must be at least " + minEvery.toMillis() + " ms ("
                    + "fq.worker.scheduler.min-every): each tick adds a job, a shorter interval floods the queue; was "
                    + every.asLong());
        }
        try {
            if (queue != null && queue.isTextual()) {
                checks.checkData(queue.asText(), template.get("data"), "template.data");
            }
            return schedulers.upsert(id, body, checks::defaultOptions).onFailure(IllegalArgumentException.class)
                    .transform(e -> InvalidParameterException.of((IllegalArgumentException) e));
        } catch (IllegalArgumentException e) {
            throw InvalidParameterException.of(e);
        }
    }

    @GET
    @Operation(summary = "Every job scheduler, with its next tick and last job")
    public Uni<List<JobSchedulerView>> list() {
        return schedulers.list();
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "One job scheduler; 404 when there is none")
    public Uni<JobSchedulerView> get(@RestPath String id) {
        return schedulers.get(id).map(view -> found(id, view));
    }

    @DELETE
    @Path("/{id}")
    @Operation(summary = "Removes a job scheduler (the jobs it produced stay); 404 when there is none")
    public Uni<Map<String, Object>> remove(@RestPath String id) {
        return schedulers.remove(id).map(removed -> {
            if (!removed) {
                throw notFound(id);
            }
            return Map.of("id", id, "removed", true);
        });
    }

    @POST
    @Path("/{id}/pause")
    @Operation(summary = "Pauses a job scheduler: its ticks produce nothing until resumed")
    public Uni<JobSchedulerView> pause(@RestPath String id) {
        return schedulers.pause(id, true).map(view -> found(id, view));
    }

    @POST
    @Path("/{id}/resume")
    @Operation(summary = "Resumes a job scheduler from its first tick after now")
    public Uni<JobSchedulerView> resume(@RestPath String id) {
        return schedulers.pause(id, false).map(view -> found(id, view));
    }

    @POST
    @Path("/{id}/run-now")
    @Operation(summary = "Produces a job of the scheduler now, beside its ticks (`<id>:<now>`)")
    public Uni<Map<String, Object>> runNow(@RestPath String id) {
        return schedulers.runNow(id).map(jobId -> {
            if (jobId == null) {
                throw notFound(id);
            }
            return Map.of("id", id, "jobId", jobId);
        });
    }

    private static JobSchedulerView found(String id, JobSchedulerView view) {
        if (view == null) {
            throw notFound(id);
        }
        return view;
    }

    private static NotFoundException notFound(String id) {
        return new NotFoundException("no job scheduler `" + id + "`");
    }
}
