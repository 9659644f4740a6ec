package dev.fencedqueue.api.admin;

import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencedqueue.api.InvalidParameterException;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobOptionsJson;
import dev.fencedqueue.flow.AddedFlow;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.flow.FlowNode;
import dev.fencedqueue.flow.FlowProducer;
import dev.fencedqueue.queue.ParentPolicy;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestResponse;

/** {@code POST /admin/flows}: adds a flow (BullMQ's {@code FlowProducer.add}), a parent with its children. */
@Path("/admin/flows")
@RolesAllowed(AdminUserConfigSourceFactory.ROLE)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Operator API: queues, jobs and maintenance (HTTP Basic, role admin)")
public class AdminFlowsResource {

    private static final Set<String> FIELDS = Set.of("queue", "name", "data", "options", "key", "policy", "children");

    private final FlowProducer flows;
    private final AddChecks checks;
    private final QueueOverview overview;
    private final ExistingFlows existing;

    public AdminFlowsResource(FlowProducer flows, AddChecks checks, QueueOverview overview, ExistingFlows existing) {
        this.flows = flows;
        this.checks = checks;
        this.overview = overview;
        this.existing = existing;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Adds a flow: a parent and its children, all or nothing", description = "Body: a job "
            + "`{\"queue\", \"name\", \"data\", \"options\", \"children\": [jobs]}`, each child also with `key` (its "
            + "id is `<parentId>:<key>`, else its position) and `policy` (`fail`, the default: its failure fails the "
            + "parent; `ignore`; `remove`). Children may use other queues and have children. The parent runs once "
            + "all its children ended and reads their results. Each job's `data` is checked as the endpoint that "
            + "adds such jobs checks it (a research job's as POST /research/start). 400 naming the field "
            + "(`children[1].name`, `children[0].data.query`) adds nothing; 201 with the tree of job ids, and "
            + "`warnings` naming each queue of the flow that no instance of this service serves. A job left without "
            + "an option gets its queue's default (a research job: those of POST /research/start). A root whose "
            + "`options.jobId` names an existing job adds nothing: 200 with `created: false` when that job has the "
            + "same name, data and children, else 409 naming it.")
    public Uni<RestResponse<FlowAdded>> add(JsonNode body) {
        FlowJob flow;
        Set<String> unserved;
        Uni<AddedFlow> added;
        try {
            flow = read(body, "", checks::defaultOptions);
            unserved = checks.checkFlow(flow);
            added = flows.add(flow);
        } catch (IllegalArgumentException e) {
            throw InvalidParameterException.of(e);
        }
        List<String> warnings = unserved.stream().map(queue -> checks.unservedWarning(queue).orElseThrow()).toList();
        return added.call(() -> overview.noteUnserved(unserved)).chain(result -> {
            FlowNode root = result.root();
            if (result.created()) {
                return Uni.createFrom().item(RestResponse.ResponseBuilder
                        .<FlowAdded>created(URI.create("/admin/queues/" + root.queue() + "/jobs/" + root.jobId()))
                        .entity(FlowAdded.of(root, true, warnings)).build());
            }
            return existing.requireSame(flow, root).map(same -> RestResponse.ok(FlowAdded.of(root, false, warnings)));
        });
    }

    /**
     * @param node a job of the request
     * @param path where it is in the request ({@code children[0].}), for messages
     * @param defaults a queue's options for a job that names none (a research job gets {@code POST /research/start}'s)
     * @return the job with its children
     * @throws IllegalArgumentException naming the field at fault
     */
    static FlowJob read(JsonNode node, String path, Function<String, JobOptions> defaults) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("`" + (path.isEmpty() ? "body" : path.substring(0, path.length() - 1))
                    + "` must be an object {queue, name, data, options, children}");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new IllegalArgumentException("`" + path + name + "` is not a field of a flow's job (one of "
                        + FIELDS + ")");
            }
        }
        String queue = text(node, "queue", path, true);
        String name = text(node, "name", path, true);
        String key = text(node, "key", path, false);
        ParentPolicy policy;
        try {
            policy = ParentPolicy.of(text(node, "policy", path, false));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("`" + path + "policy` " + e.getMessage(), e);
        }
        List<FlowJob> children = new ArrayList<>();
        JsonNode list = node.get("children");
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw new IllegalArgumentException("`" + path + "children` must be an array");
            }
            for (int i = 0; i < list.size(); i++) {
                children.add(read(list.get(i), path + "children[" + i + "].", defaults));
            }
        }
        JobOptions options = JobOptionsJson.read(node.get("options"), path + "options", defaults.apply(queue));
        return new FlowJob(queue, name, node.get("data"), options, key, policy, children);
    }

    private static String text(JsonNode node, String field, String path, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new IllegalArgumentException("`" + path + field + "` is required");
            }
            return null;
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException("`" + path + field + "` must be a string");
        }
        return value.asText();
    }
}
