package dev.fencedqueue.sse;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.tracing.JobTracing;
import io.opentelemetry.api.trace.Span;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Streams a flow to one SSE subscriber ({@link FlowSubscriber}): its root job's events and those of every child the
 * root's events announce, each job replayed and followed live as {@link JobEventFollower} follows one, merged into
 * one response whose {@code id:}s resume every job at once ({@link FlowIds}).
 */
@ApplicationScoped
public class FlowEventFollower {

    private final JobEventStore store;
    private final JobEventTailers tailers;
    private final JobTracing tracing;
    private final SseOptions options;

    public FlowEventFollower(JobEventStore store, JobEventTailers tailers, EventsConfig config, JobTracing tracing,
            ObjectMapper json) {
        this.store = store;
        this.tailers = tailers;
        this.tracing = tracing;
        this.options = SseOptions.of(config, tailers::slowDisconnect, json);
    }

    /**
     * Streams a flow into {@code response}: {@code 200} with {@code Content-Type: text/event-stream}, a {@code retry:}
     * field and every job's replay and live events; {@code 204 No Content} when the reader's {@code Last-Event-ID}
     * shows it already has the end of every job. Must be called on the event loop of the response's connection (a
     * Vert.x route handler). The root's children must live in the root's queue, with ids {@code <rootId>:<key>}.
     *
     * @param queue the flow's queue
     * @param rootId the root job's id
     * @param lastEventId the reader's {@code Last-Event-ID} (header or query parameter), or {@code null}; one that is
     *        not a flow id ({@link FlowIds}) is ignored (every job replays from its start)
     * @param response the response, not yet written
     * @param access checks that the caller may read the root job, once it is read; throws to refuse
     * @param childrenOf the ids of the children an event of the root announces, empty for most events
     * @return completes once the root job was read and the flow followed; fails, with nothing written, with
     *         {@link dev.fencedqueue.queue.JobNotFoundException} when there is no root job, with
     *         {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is down, and with what {@code access}
     *         threw. A job that cannot be followed later ends the stream ({@code 503} before its first byte)
     */
    public Uni<Void> follow(JobQueue queue, String rootId, String lastEventId, HttpServerResponse response,
            Consumer<Job> access, Function<JobEvent, List<String>> childrenOf) {
        Map<String, String> positions = FlowIds.parse(lastEventId);
        Context connection = Vertx.currentContext();
        Span request = Span.current(); // the reader's request, on the route's thread
        return queue.requireJob(rootId).invoke(access).emitOn(command -> connection.runOnContext(ignored -> command.run()))
                .invoke(root -> {
                    FlowSubscriber[] flow = new FlowSubscriber[1];
                    flow[0] = new FlowSubscriber(response, connection, rootId, positions, options, childrenOf,
                            (member, after) -> follow(queue, flow[0], member, after),
                            new StreamSpan(tracing.receive(queue.name(), rootId, root.traceParent(), request)));
                    flow[0].start();
                })
                .replaceWithVoid();
    }

    private void follow(JobQueue queue, FlowSubscriber flow, FlowSubscriber.Member member, String resumeAfter) {
        String jobId = member.jobId();
        tailers.follow(queue, jobId, member).chain(unregister -> {
            Uni<Long> clientEpoch = store.epochOf(queue.keys(), jobId, resumeAfter);
            Uni<Optional<Job>> job = queue.getJob(jobId).map(Optional::ofNullable);
            return Uni.combine().all().unis(job, clientEpoch, store.readAll(queue.keys(), jobId, resumeAfter)).asTuple()
                    .emitOn(flow::execute)
                    .invoke(read -> {
                        member.onFinish(unregister);
                        member.start(read.getItem1().orElse(null), read.getItem2(), resumeAfter, read.getItem3());
                    })
                    .onFailure().invoke(unregister);
        }).subscribe().with(started -> {
        }, failure -> flow.execute(() -> flow.fail(failure)));
    }
}
