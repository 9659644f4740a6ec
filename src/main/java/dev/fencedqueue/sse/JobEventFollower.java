package dev.fencedqueue.sse;

import java.util.function.Consumer;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.events.StreamIds;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.tracing.JobTracing;
import io.opentelemetry.api.trace.Span;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Streams a job to one SSE subscriber: it replays the job's stream (from the start, or after the client's
 * {@code Last-Event-ID} as the SSE specification defines), then follows it live through the shared tailer, shows one
 * epoch at a time (a {@code reset} before a newer epoch, older epochs dropped), sends a keep-alive comment while idle,
 * and ends after the terminal event.
 */
@ApplicationScoped
public class JobEventFollower {

    private final JobEventStore store;
    private final JobEventTailers tailers;
    private final JobTracing tracing;
    private final SseOptions options;

    public JobEventFollower(JobEventStore store, JobEventTailers tailers, EventsConfig config, JobTracing tracing,
            ObjectMapper json) {
        this.store = store;
        this.tailers = tailers;
        this.tracing = tracing;
        this.options = SseOptions.of(config, tailers::slowDisconnect, json);
    }

    /**
     * Streams a job into {@code response}: {@code 204 No Content} when {@code lastEventId} shows the client already
     * has the end of the job (the job has ended and its stream holds nothing after that id), else {@code 200} with
     * {@code Content-Type: text/event-stream}, a {@code retry:} field, the replay and the live events. Must be called
     * on the event loop of the response's connection (a Vert.x route handler).
     *
     * @param queue the job's queue
     * @param jobId the job id
     * @param lastEventId the client's {@code Last-Event-ID} (header or query parameter), or {@code null}; an id that
     *        is not a stream entry id is ignored (the stream replays from the start)
     * @param response the response, not yet written
     * @param access checks that the caller may read the job, once it is read; throws to refuse (its exception is
     *        what the returned {@code Uni} fails with)
     * @return completes once the response's status is sent; fails, with nothing written, with
     *         {@link dev.fencedqueue.queue.JobNotFoundException} when there is no such job, with
     *         {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is down, and with what {@code access}
     *         threw
     */
    public Uni<Void> follow(JobQueue queue, String jobId, String lastEventId, HttpServerResponse response,
            Consumer<Job> access) {
        SseSubscriber subscriber = new SseSubscriber(response, Vertx.currentContext(), options);
        String resumeAfter = StreamIds.isValid(lastEventId) ? lastEventId : null;
        Span request = Span.current(); // the reader's request, on the route's thread
        // The job is read once: it decides the 204, and what of the replay is current.
        return queue.requireJob(jobId).invoke(access).chain(job -> hasEnded(queue, job, resumeAfter).chain(ended -> ended
                ? Uni.createFrom().voidItem().emitOn(subscriber::execute).invoke(() -> response.setStatusCode(204).end())
                : stream(queue, job, resumeAfter, subscriber, request)));
    }

    /**
     * Tells whether a client that reconnects after {@code resumeAfter} has already seen the end of the job: the job has
     * ended and its stream holds nothing after that id (a finished job's stream ends with its terminal event: the fence
     * rejects every later write), read with one {@code XREVRANGE ... COUNT 1}. Such a client is best answered
     * {@code 204 No Content}, which per the SSE specification (HTML Living Standard, "Server-sent events") makes an
     * {@code EventSource} stop reconnecting.
     */
    private Uni<Boolean> hasEnded(JobQueue queue, Job job, String resumeAfter) {
        if (resumeAfter == null || !job.state().isTerminal()) {
            return Uni.createFrom().item(false);
        }
        return store.lastId(queue.keys(), job.id()).map(lastId -> StreamIds.compare(lastId, resumeAfter) <= 0);
    }

    private Uni<Void> stream(JobQueue queue, Job job, String resumeAfter, SseSubscriber subscriber, Span request) {
        return tailers.follow(queue, job.id(), subscriber).chain(unregister -> {
            Uni<Long> clientEpoch = store.epochOf(queue.keys(), job.id(), resumeAfter);
            return clientEpoch.chain(epoch -> store.readAll(queue.keys(), job.id(), resumeAfter)
                    .emitOn(subscriber::execute)
                    .invoke(replay -> {
                        subscriber.onFinish(unregister);
                        subscriber.start(job, epoch, resumeAfter, replay, new StreamSpan(
                                tracing.receive(queue.name(), job.id(), job.traceParent(), request)));
                    }))
                    .onFailure().invoke(unregister)
                    .replaceWithVoid();
        });
    }
}
