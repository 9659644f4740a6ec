package dev.fencedqueue.api;

import java.net.URI;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobHistory;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.flow.FlowReader;
import dev.fencedqueue.research.ResearchJobs;
import dev.fencedqueue.research.ResearchRequest;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.resteasy.reactive.jackson.CustomDeserialization;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * The deep-research API under {@code /research}: start a job, read its history and status, abort it. Its event stream,
 * {@code GET /research/stream/{jobId}}, is served by {@link JobStreamRoutes}.
 */
@Path("/research")
@Tag(name = "research", description = "Deep-research jobs and their event streams")
public class ResearchResource {

    private final JobQueue queue;
    private final FlowReader flows;
    private final ResearchConfig config;
    private final JobHistory history;
    private final ObjectMapper json;
    private final StartRateLimit rateLimit;
    private final JobOwnership ownership;
    private final CurrentIdentityAssociation identity;
    private final JobTenancy tenancy;
    private final TenantQuotas quotas;
    private final TenancyConfig tenancyConfig;

    public ResearchResource(Queues queues, FlowReader flows, ResearchConfig config, JobHistory history,
            ObjectMapper json, StartRateLimit rateLimit, JobOwnership ownership, CurrentIdentityAssociation identity,
            JobTenancy tenancy, TenantQuotas quotas, TenancyConfig tenancyConfig) {
        this.tenancyConfig = tenancyConfig;
        this.flows = flows;
        this.tenancy = tenancy;
        this.quotas = quotas;
        this.rateLimit = rateLimit;
        this.ownership = ownership;
        this.identity = identity;
        this.queue = queues.queue(config.queue());
        this.config = config;
        this.history = history;
        this.json = json;
    }

    @POST
    @Path("/start")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @CustomDeserialization(StrictBody.class)
    @Operation(summary = "Queue a research job", description = "202 with the job id and its URLs. With an "
            + "Idempotency-Key header, the same key with the same body within its TTL returns the same job "
            + "(`created: false`), with another body 422. 429 with Retry-After when the "
            + "client's address has started fq.research.start-rate-limit.max jobs in the current window. The job belongs "
            + "to the tenant fq.tenancy.source names: the bearer token's principal (401 without one), or the "
            + "fq.tenancy.header header (400 without it). 429 with Retry-After when the tenant's research jobs spent "
            + "its token quota (PUT /admin/tenants/{id}) in the current period.")
    public Uni<RestResponse<StartResponse>> start(
            @Valid @NotNull(message = "the body must be a JSON object with a `query`") ResearchRequest request,
            @RestHeader("Idempotency-Key") String idempotencyKey, HttpServerRequest http) {
        JobOptions options = ResearchJobs.options(config).withJobId("research-" + UUID.randomUUID());
        if (idempotencyKey != null) {
            if (idempotencyKey.isBlank() || idempotencyKey.length() > 255) {
                throw new InvalidParameterException("Idempotency-Key", "`idempotencyKey` must be 1 to 255 characters");
            }
            options = options.withIdempotencyKey(idempotencyKey, config.idempotencyTtl());
        }
        JobOptions accepted = options;
        String client = http.remoteAddress() == null ? "unknown" : http.remoteAddress().hostAddress();
        String name = request.deep() ? "deep-research" : "research";
        return caller().map(caller -> ownership.dataFor(request, caller))
                .chain(data -> tenancy.tenantOf(http, identity::getDeferredIdentity)
                        .chain(tenant -> quotas.admit(queue, tenant).chain(() -> rateLimit.admit(queue, client))
                                .chain(() -> queue.add(name, data, accepted.withTenant(tenant)))))
                .map(added -> {
                    StartResponse body = StartResponse.of(added.jobId(), added.created(), request.deep());
                    return RestResponse.ResponseBuilder.create(RestResponse.Status.ACCEPTED, body)
                            .location(URI.create(body.statusUrl())).build();
                });
    }

    @GET
    @Path("/settings")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "What a client must send to start a job", description = "`tenancy.source` is `none`, "
            + "`header` (send the tenant in the header `tenancy.header`; `tenancy.rule` says what a tenant id may be) "
            + "or `principal` (send a bearer JWT), as fq.tenancy.source says. Public.")
    @NonBlocking
    public ResearchSettings settings() {
        return ResearchSettings.of(tenancyConfig);
    }

    @GET
    @Path("/history/{jobId}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Every stored event of a job, those of stale runs included")
    public Uni<List<ObjectNode>> history(@RestPath String jobId) {
        return owned(jobId).chain(() -> history.all(queue, jobId)).map(this::views);
    }

    @GET
    @Path("/valid-history/{jobId}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "The events a reader should see: the current run's, and those of earlier runs up to each resume point it continues")
    public Uni<List<ObjectNode>> validHistory(@RestPath String jobId) {
        return owned(jobId).chain(() -> history.valid(queue, jobId)).map(this::views);
    }

    @GET
    @Path("/status/{jobId}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "A job's state, fencing token, attempts, progress, result or failure; a flow's parent's "
            + "children, a child's parent")
    public Uni<JobStatusView> status(@RestPath String jobId) {
        return caller().chain(caller -> queue.requireJob(jobId).invoke(job -> ownership.checkAccess(job, caller)))
                .chain(job -> JobStatusView.withChildren(job, queue, flows, json));
    }

    @POST
    @Path("/abort/{jobId}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Abort a job", description = "A running job's LLM call is closed; a waiting job leaves "
            + "the queue. The job ends `aborted` and is never retried. 409 when it already ended.")
    public Uni<AbortResponse> abort(@RestPath String jobId) {
        return owned(jobId).chain(() -> queue.abort(jobId, "aborted by user"))
                .map(result -> new AbortResponse(jobId, "aborted", result.previousState().value(), result.wasRunning()));
    }

    /** @return nothing once the caller may read or abort the job (at once when ownership is off) */
    private Uni<Void> owned(String jobId) {
        if (!ownership.required()) {
            return Uni.createFrom().voidItem();
        }
        return caller().chain(caller -> queue.requireJob(jobId).invoke(job -> ownership.checkAccess(job, caller)))
                .replaceWithVoid();
    }

    private Uni<String> caller() {
        return ownership.caller(identity::getDeferredIdentity);
    }

    private List<ObjectNode> views(List<JobEvent> events) {
        return JobEventViews.of(events, json);
    }
}
