package dev.fencedqueue.api;

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

    private final JobQueue queue;
    private final SharedConnection redis;

    private final JobEventFollower follower;

    public JobExistenceFilter(Queues queues, ResearchConfig config, SharedConnection redis, JobEventFollower follower) {
        this.queue = queues.queue(config.queue());
        this.redis = redis;
        this.follower = follower;
    }

    @ServerRequestFilter
    public Uni<Response> requireJob(ContainerRequestContext request, ResourceInfo resource) {
        if (resource.getResourceMethod() == null || !resource.getResourceMethod().isAnnotationPresent(RequiresJob.class)) {
            return Uni.createFrom().nullItem();
        }
        String jobId = request.getUriInfo().getPathParameters().getFirst("jobId");
        if (!QueueKeys.isValidJobId(jobId)) {
            return Uni.createFrom().item(notFound(jobId));
        }
        String lastEventId = request.getHeaderString("Last-Event-ID");
        if (StreamIds.isValid(lastEventId)) {
            return follower.hasEndedFor(queue, jobId, lastEventId)
                    .map(ended -> ended ? Response.noContent().build() : null)
                    .onFailure(JobNotFoundException.class).recoverWithItem(() -> notFound(jobId));
        }
        return redis.send(Request.cmd(Command.EXISTS).arg(queue.keys().job(jobId)))
                .map(reply -> reply.toInteger() == 1 ? null : notFound(jobId));
    }

    private Response notFound(String jobId) {
        return Response.status(Response.Status.NOT_FOUND).type("application/json")
                .entity(ApiError.of("not_found", new JobNotFoundException(queue.name(), jobId).getMessage())).build();
    }
}
