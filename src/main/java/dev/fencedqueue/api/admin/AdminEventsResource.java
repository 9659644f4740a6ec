package dev.fencedqueue.api.admin;

import java.time.Duration;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.events.StreamIds;
import dev.fencedqueue.sse.StreamMessage;
import dev.fencedqueue.queue.QueueEvent;
import dev.fencedqueue.queue.Queues;
import io.smallrye.mutiny.Multi;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;

/**
 * The operator API's live feed: a queue's events over SSE ({@code waiting}, {@code active}, {@code progress},
 * {@code completed}, {@code failed}, {@code aborted}, {@code stalled}, {@code paused}, ...), read from the queue's
 * event stream with {@code XREAD BLOCK} on a connection of the feed's own. HTTP Basic, role {@code admin}.
 */
@Path("/admin/queues/{queue}/events")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminEventsResource {

    private final Queues queues;
    private final ObjectMapper json;
    private final Duration keepAlive;

    public AdminEventsResource(Queues queues, ObjectMapper json, EventsConfig events) {
        this.queues = queues;
        this.json = json;
        this.keepAlive = events.sse().keepAlive();
    }

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(summary = "Follow a queue's events live (SSE)", description = "From now on, or after `Last-Event-ID` "
            + "(a stream entry id) when sent: `id:` is the entry id, `event:` the queue event, `data:` JSON with "
            + "`jobId` and the event's fields (`prev`, `failedReason`, `data` for progress ...). Keep-alive comments "
            + "while idle. Older events may have been trimmed (fq.events.queue-stream-max-length).")
    public Multi<OutboundSseEvent> events(@RestPath String queue, @RestHeader("Last-Event-ID") String lastEventId,
            @Context Sse sse) {
        String after = StreamIds.isValid(lastEventId) ? lastEventId : "$";
        Multi<StreamMessage> events = AdminParams.queue(queues, queue).events(after).map(this::message);
        Multi<StreamMessage> keepAlives = Multi.createFrom().ticks().every(keepAlive).map(tick -> StreamMessage.KEEP_ALIVE);
        return Multi.createBy().merging().streams(events, keepAlives).map(message -> message.isKeepAlive()
                ? sse.newEventBuilder().comment(message.comment()).build()
                : sse.newEventBuilder().id(message.id()).name(message.event()).data(message.data()).build());
    }

    private StreamMessage message(QueueEvent event) {
        ObjectNode data = json.createObjectNode().put("jobId", event.jobId());
        event.fields().forEach(data::put);
        return new StreamMessage(event.id(), event.event(), data.toString(), null);
    }
}
