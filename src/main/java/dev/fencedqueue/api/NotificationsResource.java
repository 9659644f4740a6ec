package dev.fencedqueue.api;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.fencedqueue.api.NotificationRequests.AddSubscribers;
import dev.fencedqueue.api.NotificationRequests.FanOutAccepted;
import dev.fencedqueue.api.NotificationRequests.FanOutRequest;
import dev.fencedqueue.api.NotificationRequests.SubscribersAdded;
import dev.fencedqueue.bulk.Throttle;
import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.notifications.Channels;
import dev.fencedqueue.notifications.FanOut;
import dev.fencedqueue.notifications.Notification;
import dev.fencedqueue.notifications.NotificationStore;
import dev.fencedqueue.queue.Backoff;
import dev.fencedqueue.queue.Deduplication;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobStateConflictException;
import dev.fencedqueue.queue.KeepJobs;
import dev.fencedqueue.queue.Queues;
import io.quarkus.resteasy.reactive.jackson.CustomDeserialization;
import io.quarkus.security.identity.CurrentIdentityAssociation;
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
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestResponse;

/**
 * The notification fan-out bulk job as an API: subscribers of a channel, a fan-out of a message to all of them (a
 * chunked job that commits each chunk exactly once into its sink, PostgreSQL or Redis as {@code fq.bulk.sink} says), a
 * subscriber's notifications, and the job's status and event stream. Nothing here blocks: the PostgreSQL store runs its
 * JDBC calls on worker or virtual threads.
 */
@Path("/notifications")
@Tag(name = "notifications", description = "Channel subscribers and exactly-once notification fan-outs (bulk jobs)")
public class NotificationsResource {

    private static final int MAX_NOTIFICATIONS = 1000;
    private static final int ATTEMPTS = 5;

    private final JobQueue queue;
    private final BulkConfig config;
    private final NotificationStore store;
    private final BulkJobViews views;
    private final ObjectMapper json;
    private final JobTenancy tenancy;
    private final CurrentIdentityAssociation identity;

    public NotificationsResource(Queues queues, BulkConfig config, NotificationStore store, BulkJobViews views,
            ObjectMapper json, JobTenancy tenancy, CurrentIdentityAssociation identity) {
        this.tenancy = tenancy;
        this.identity = identity;
        this.queue = queues.queue(config.queue());
        this.config = config;
        this.store = store;
        this.views = views;
        this.json = json;
    }

    @POST
    @Path("/channels/{channel}/subscribers")
    @Consumes(MediaType.APPLICATION_JSON)
    @CustomDeserialization(StrictBody.class)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Add subscribers to a channel", description = "Up to 1,000 ids per request; adding an "
            + "existing subscriber again does nothing. Answers how many were new.")
    public Uni<SubscribersAdded> addSubscribers(@RestPath String channel,
            @Valid @NotNull(message = "the body must be a JSON object with `subscriberIds`") AddSubscribers body) {
        return store.add(requireChannel(channel), body.subscriberIds()).map(added -> new SubscribersAdded(channel, added));
    }

    @POST
    @Path("/channels/{channel}/fan-out")
    @Consumes(MediaType.APPLICATION_JSON)
    @CustomDeserialization(StrictBody.class)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Notify every subscriber of a channel", description = "202 with the job id and its URLs. "
            + "The job walks the subscribers in chunks (`chunkSize`, default 500), committing each chunk's "
            + "notification and push-outbox rows with its cursor in one fenced transaction (or Lua script), paced "
            + "by `throttle`. "
            + "404 for a channel without subscribers; 409 when another fan-out of the channel has not finished and "
            + "fq.bulk.single-flight=refuse (with `wait`, the default, it runs after the other one). The job belongs "
            + "to the tenant fq.tenancy.source names, as for research jobs.")
    public Uni<RestResponse<FanOutAccepted>> fanOut(@RestPath String channel,
            @Valid @NotNull(message = "the body must be a JSON object with a `message`") FanOutRequest body,
            HttpServerRequest http) {
        String checked = requireChannel(channel);
        return tenancy.tenantOf(http, identity::getDeferredIdentity).chain(tenant -> store.hasSubscribers(checked)
                .chain(known -> {
                    if (!known) {
                        throw new UnknownChannelException(channel);
                    }
                    return add(channel, body, tenant);
                }));
    }

    private Uni<RestResponse<FanOutAccepted>> add(String channel, FanOutRequest body, String tenant) {
        FanOut fanOut = new FanOut(channel, body.message(), body.chunkSize() == null ? config.chunkSize()
                : body.chunkSize(), body.throttle() == null ? Throttle.NONE : body.throttle().normalized());
        JobOptions options = JobOptions.defaults().withJobId("fan-out-" + UUID.randomUUID())
                .withAttempts(ATTEMPTS).withBackoff(Backoff.exponential(Duration.ofSeconds(1)))
                .withRemoveOnComplete(new KeepJobs(10_000, Duration.ofDays(1)))
                .withRemoveOnFail(new KeepJobs(10_000, Duration.ofDays(7))).withTenant(tenant);
        boolean refuse = config.singleFlight() == BulkConfig.SingleFlight.REFUSE;
        if (refuse) {
            options = options.withDeduplication(new Deduplication("fan-out:" + channel, null));
        }
        return queue.add("fan-out", fanOut, options).map(added -> {
            if (refuse && added.deduplicated()) {
                throw new JobStateConflictException("channel `" + channel + "` has a fan-out "
                        + "that has not finished: job " + added.jobId() + " (fq.bulk.single-flight=refuse)");
            }
            FanOutAccepted accepted = FanOutAccepted.of(added.jobId());
            return RestResponse.ResponseBuilder.create(RestResponse.Status.ACCEPTED, accepted)
                    .location(URI.create(accepted.statusUrl())).build();
        });
    }

    @GET
    @Path("/subscribers/{subscriberId}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "A subscriber's notifications, newest first (at most 1,000)")
    public Uni<List<Notification>> notifications(@RestPath String subscriberId) {
        if (!Channels.isSubscriber(subscriberId)) {
            throw new InvalidParameterException("subscriberId", "`subscriberId` must be 1 to 128 of A-Z a-z 0-9 . _ : @ -");
        }
        return store.notifications(subscriberId, MAX_NOTIFICATIONS);
    }

    @GET
    @Path("/jobs/{jobId}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "A fan-out: state, fencing token, cursor, chunks and items done, items in all",
            description = "The cursor and counts come from the sink (the truth).")
    public Uni<BulkJobView> status(@RestPath String jobId) {
        return views.of(queue, jobId);
    }

    private static String requireChannel(String channel) {
        if (!Channels.isChannel(channel)) {
            throw new InvalidParameterException("channel", "`channel` must be 1 to 100 of A-Z a-z 0-9 . _ : -");
        }
        return channel;
    }
}
