package dev.fencedqueue.api;

import java.util.function.Consumer;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.config.BulkConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.events.JobEventFollower;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * The SSE streams of jobs, {@code GET /research/stream/{jobId}} and {@code GET /notifications/jobs/{jobId}/stream}
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
    private final ObjectMapper json;
    private final JobOwnership ownership;

    public JobStreamRoutes(Queues queues, ResearchConfig research, BulkConfig bulk, JobEventFollower follower,
            JobOwnership ownership, ObjectMapper json) {
        this.research = queues.queue(research.queue());
        this.notifications = queues.queue(bulk.queue());
        this.follower = follower;
        this.json = json;
        this.ownership = ownership;
    }

    void install(@Observes Router router) {
        router.get("/research/stream/:jobId").handler(context -> {
            if (!ownership.required()) {
                stream(research, context, job -> {
                });
                return;
            }
            Context connection = Vertx.currentContext();
            ownership.caller(() -> QuarkusHttpUser.getSecurityIdentity(context, null)).subscribe().with(
                    caller -> connection.runOnContext(
                            ignored -> stream(research, context, job -> ownership.checkAccess(job, caller))),
                    failure -> connection.runOnContext(ignored -> fail(context.response(), failure)));
        });
        router.get("/notifications/jobs/:jobId/stream").handler(context -> stream(notifications, context, job -> {
        }));
    }

    private void stream(JobQueue queue, RoutingContext context, Consumer<Job> access) {
        String jobId = context.pathParam("jobId");
        HttpServerResponse response = context.response();
        if (!QueueKeys.isJobId(jobId)) {
            HttpError.of(new JobNotFoundException(queue.name(), jobId)).send(response, json);
            return;
        }
        String lastEventId = LastEventIds.of(context.request().getHeader("Last-Event-ID"),
                context.queryParams().get(LastEventIds.QUERY));
        Context connection = Vertx.currentContext();
        follower.follow(queue, jobId, lastEventId, response, access).subscribe().with(started -> {
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
