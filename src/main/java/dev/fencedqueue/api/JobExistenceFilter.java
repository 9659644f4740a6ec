package dev.fencedqueue.api;

import dev.fencedqueue.config.BulkConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.events.JobEventFollower;
import dev.fencedqueue.events.StreamIds;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.queue.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Answers 404 (as JSON) for methods marked {@link RequiresJob} when their {@code jobId} names no job, before
 * the method runs: an SSE response cannot change its status once its first bytes are out. For the same
 * reason it answers {@code 204 No Content} to a request whose {@code Last-Event-ID} shows that the client
 * already has the end of a finished job ({@link JobEventFollower#hasEndedFor}): that is how an
 * {@code EventSource}, which reconnects whenever a stream ends, learns to stop (SSE specification, HTML
 * Living Standard).
 */
public class JobExistenceFilter {

    private final JobQueue research;
    private final JobQueue notifications;
    private final SharedConnection redis;
    private final JobEventFollower follower;

    public JobExistenceFilter(Queues queues, ResearchConfig research, BulkConfig bulk, SharedConnection redis,
            JobEventFollower follower) {
        this.research = queues.queue(research.queue());
        this.notifications = queues.queue(bulk.queue());
        this.redis = redis;
        this.follower = follower;
    }

    @ServerRequestFilter
    public Uni<Response> requireJob(ContainerRequestContext request, ResourceInfo resource) {
        RequiresJob required = resource.getResourceMethod() == null ? null
                : resource.getResourceMethod().getAnnotation(RequiresJob.class);
        if (required == null) {
            return Uni.createFrom().nullItem();
        }
        JobQueue queue = required.value() == RequiresJob.Kind.NOTIFICATION ? notifications : research;
        String jobId = request.getUriInfo().getPathParameters().getFirst("jobId");
        if (!QueueKeys.isValidJobId(jobId)) {
            return Uni.createFrom().item(notFound(queue, jobId));
        }
        String lastEventId = LastEventIds.of(request.getHeaderString("Last-Event-ID"),
                request.getUriInfo().getQueryParameters().getFirst(LastEventIds.QUERY));
        if (StreamIds.isValid(lastEventId)) {
            return follower.hasEndedFor(queue, jobId, lastEventId)
                    .map(ended -> ended ? Response.noContent().build() : null)
                    .onFailure(JobNotFoundException.class).recoverWithItem(() -> notFound(queue, jobId));
        }
        return redis.send(Request.cmd(Command.EXISTS).arg(queue.keys().job(jobId)))
                .map(reply -> reply.toInteger() == 1 ? null : notFound(queue, jobId));
    }

    private static Response notFound(JobQueue queue, String jobId) {
        return Response.status(Response.Status.NOT_FOUND).type("application/json")
                .entity(ApiError.of("not_found", new JobNotFoundException(queue.name(), jobId).getMessage())).build();
    }
}
