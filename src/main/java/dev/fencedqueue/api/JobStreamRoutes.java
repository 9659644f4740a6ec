package dev.fencedqueue.api;

import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.sse.FlowEventFollower;
import dev.fencedqueue.sse.JobEventFollower;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.research.DeepResearch;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ManagedContext;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * The SSE streams of jobs, {@code GET /research/stream/{jobId}} (and a deep research job's flow stream,
 * {@code GET /research/stream/{jobId}/flow}: its events and its children's, see {@link FlowEventFollower}) and
 * {@code GET /notifications/jobs/{jobId}/stream}
 * (documented in {@code META-INF/openapi.yaml}): plain Vert.x routes rather than REST resources, so that each event is
 * framed once and the same bytes are written to every subscriber of the job, with no per-subscriber serialization
 * (see {@link JobEventFollower#follow}). Before the first byte they answer, as JSON errors: 404 when the job does not
 * exist, 503 when Redis is unavailable; and {@code 204 No Content} to a client whose {@code Last-Event-ID} shows it
 * already has the end of a finished job, which per the SSE specification (HTML Living Standard) makes an
 * {@code EventSource} stop reconnecting. The last event id comes from the {@code Last-Event-ID} header or the
 * {@code lastEventId} query parameter ({@link LastEventIds}).
 */
@ApplicationScoped
public class JobStreamRoutes {

    private static final Logger LOG = Logger.getLogger(JobStreamRoutes.class);

    private final JobQueue research;
    private final JobQueue notifications;
    private final JobEventFollower follower;
    private final FlowEventFollower flows;
    private final ObjectMapper json;
    private final JobOwnership ownership;
    private final CurrentIdentityAssociation identity;

    public JobStreamRoutes(Queues queues, ResearchConfig research, BulkConfig bulk, JobEventFollower follower,
            JobOwnership ownership, ObjectMapper json, FlowEventFollower flows, CurrentIdentityAssociation identity) {
        this.flows = flows;
        this.identity = identity;
        this.research = queues.queue(research.queue());
        this.notifications = queues.queue(bulk.queue());
        this.follower = follower;
        this.json = json;
        this.ownership = ownership;
    }

    void install(@Observes Router router) {
        router.get("/research/stream/:jobId").handler(context -> withAccess(context,
                access -> stream(research, context, access)));
        router.get("/research/stream/:jobId/flow").handler(context -> withAccess(context, access -> flow(context, access)));
        router.get("/notifications/jobs/:jobId/stream").handler(context -> stream(notifications, context, job -> {
        }));
    }

    /** Runs {@code then} with the check of the caller's access to a research job ({@code fq.research.require-owner}). */
    private void withAccess(RoutingContext context, Consumer<Consumer<Job>> then) {
        if (!ownership.required()) {
            then.accept(job -> {
            });
            return;
        }
        Context connection = Vertx.currentContext();
        ownership.caller(this::identity).subscribe().with(
                caller -> connection.runOnContext(ignored -> then.accept(job -> ownership.checkAccess(job, caller))),
                failure -> connection.runOnContext(ignored -> fail(context.response(), failure)));
    }

    /**
     * The request's deferred identity, authenticated when subscribed (at most once per request). A Vert.x route runs
     * without a CDI request context: one is active for the look-up only, in which Quarkus's
     * {@link CurrentIdentityAssociation} hands out the identity of the route's request
     * ({@code quarkus.http.auth.propagate-security-identity=true}). Call on the route's context.
     */
    private Uni<SecurityIdentity> identity() {
        ManagedContext requestContext = Arc.container().requestContext();
        if (requestContext.isActive()) {
            return identity.getDeferredIdentity();
        }
        requestContext.activate();
        try {
            return identity.getDeferredIdentity();
        } finally {
            requestContext.terminate();
        }
    }

    /** A deep research job's flow stream: its events and its children's, merged ({@link FlowEventFollower}). */
    private void flow(RoutingContext context, Consumer<Job> access) {
        serve(research, context, LastEventIds::ofFlow, (jobId, lastEventId) -> flows.follow(research, jobId,
                lastEventId, context.response(), access, event -> DeepResearch.childrenAnnounced(event, json)));
    }

    private void stream(JobQueue queue, RoutingContext context, Consumer<Job> access) {
        serve(queue, context, LastEventIds::of, (jobId, lastEventId) -> follower.follow(queue, jobId, lastEventId,
                context.response(), access));
    }

    /**
     * Answers 404 for a path that names no job, else follows the job from the client's last event id (header, or
     * query parameter), answering a failure before the stream starts as a JSON error.
     */
    private void serve(JobQueue queue, RoutingContext context, BinaryOperator<String> lastEventIds,
            BiFunction<String, String, Uni<Void>> follow) {
        String jobId = context.pathParam("jobId");
        HttpServerResponse response = context.response();
        if (!QueueKeys.isJobId(jobId)) {
            HttpError.of(new JobNotFoundException(queue.name(), jobId)).send(response, json);
            return;
        }
        String lastEventId = lastEventIds.apply(context.request().getHeader("Last-Event-ID"),
                context.queryParams().get(LastEventIds.QUERY));
        Context connection = Vertx.currentContext();
        follow.apply(jobId, lastEventId).subscribe().with(started -> {
        }, failure -> connection.runOnContext(ignored -> fail(response, failure)));
    }

    private void fail(HttpServerResponse response, Throwable failure) {
        if (response.headWritten() || response.closed()) {
            LOG.warn("an SSE stream failed after its start", failure);
            if (!response.ended() && !response.closed()) {
                response.reset();
            }
        } else {
            HttpError.of(failure).send(response, json);
        }
    }
}
