package dev.fencedqueue.flow;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fencedqueue.queue.FlowJob;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.JobOptionsJson;
import dev.fencedqueue.queue.QueueKeys;

/**
 * A flow checked and written as specs: the JSON that the pending-children hash holds for each child until it is
 * added, from which a crashed add is finished. A spec is {@code {"jobId", "queue", "name", "data", "options" (see
 * JobOptionsJson), "policy", "parentKey" (a child's), "children": [specs]}}, every job id resolved (a child's is
 * {@code <parentId>:<key>}) and every tenant (a child without one takes its parent's), and {@code "traceparent"}:
 * the span that added the flow (or the running job's children), which every job of it joins.
 */
final class FlowSpecs {

    /** The field of a spec that holds the W3C {@code traceparent} of the span that added it. */
    static final String TRACE_PARENT = "traceparent";

    private FlowSpecs() {
    }

    /** @return how many jobs a spec's tree holds, itself included */
    static int count(JsonNode spec) {
        int jobs = 1;
        for (JsonNode child : spec.path("children")) {
            jobs += count(child);
        }
        return jobs;
    }

    /**
     * Checks a flow and resolves its job ids, before anything is written, so that a bad job refuses the whole flow.
     *
     * @param flow the root, not {@code null}
     * @param keyPrefix the global key prefix, to check queue names
     * @return the root's spec, with its children's
     * @throws IllegalArgumentException naming the bad field by its path ({@code children[1].name}), or when the flow
     *         has more than {@link FlowJob#MAX_JOBS} jobs or {@link FlowJob#MAX_DEPTH} levels
     */
    static ObjectNode root(FlowJob flow, String keyPrefix) {
        if (flow == null) {
            throw new IllegalArgumentException("the flow must not be null");
        }
        String id = flow.options() != null && flow.options().jobId() != null ? flow.options().jobId()
                : "flow-" + UUID.randomUUID();
        int[] count = {0};
        return spec(flow, id, "", 0, count, keyPrefix, null);
    }

    /**
     * Checks a running job's children and resolves their ids ({@code <parentId>:<key>}).
     *
     * @param parentId the parent's id
     * @param parentKey the parent's job key
     * @param parentTenant the parent's tenant, which children without one take ({@code null} for the default)
     * @param children the children, not empty
     * @param keyPrefix the global key prefix
     * @return their specs, each with {@code parentKey}
     * @throws IllegalArgumentException naming the bad field ({@code children[0].queue})
     */
    static List<ObjectNode> children(String parentId, String parentKey, String parentTenant, List<FlowJob> children,
            String keyPrefix) {
        if (children == null || children.isEmpty()) {
            throw new IllegalArgumentException("`children` must not be empty");
        }
        int[] count = {0};
        List<ObjectNode> specs = childSpecs(parentId, children, "", 0, count, keyPrefix, parentTenant);
        specs.forEach(spec -> spec.put("parentKey", parentKey));
        return specs;
    }

    private static ObjectNode spec(FlowJob job, String jobId, String path, int depth, int[] count, String keyPrefix,
            String parentTenant) {
        if (++count[0] > FlowJob.MAX_JOBS) {
            throw new IllegalArgumentException("a flow has at most " + FlowJob.MAX_JOBS + " jobs");
        }
        if (depth > FlowJob.MAX_DEPTH) {
            throw new IllegalArgumentException("`" + path + "children` is deeper than " + FlowJob.MAX_DEPTH + " levels");
        }
        try {
            QueueKeys.of(keyPrefix, job.queue());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("`" + path + "queue`: " + e.getMessage(), e);
        }
        if (job.name() == null || job.name().isBlank()) {
            throw new IllegalArgumentException("`" + path + "name` must not be blank");
        }
        if (job.options() == null) {
            throw new IllegalArgumentException("`" + path + "options` must not be null");
        }
        if (!QueueKeys.isJobId(jobId)) {
            throw new IllegalArgumentException("`" + path + "key` makes the job id `" + jobId + "`, longer than "
                    + QueueKeys.MAX_DERIVED_JOB_ID + " characters");
        }
        ObjectNode spec = JsonNodeFactory.instance.objectNode().put("jobId", jobId).put("queue", job.queue())
                .put("name", job.name());
        spec.set("data", job.data() == null ? NullNode.getInstance() : job.data());
        JobOptions options = job.options().tenant() == null ? job.options().withTenant(parentTenant) : job.options();
        spec.set("options", JobOptionsJson.write(options.withJobId(null)));
        spec.put("policy", job.policy().value());
        ArrayNode children = spec.putArray("children");
        childSpecs(jobId, job.children(), path, depth + 1, count, keyPrefix, options.tenant()).forEach(children::add);
        return spec;
    }

    private static List<ObjectNode> childSpecs(String parentId, List<FlowJob> children, String path, int depth,
            int[] count, String keyPrefix, String parentTenant) {
        List<ObjectNode> specs = new ArrayList<>(children.size());
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < children.size(); i++) {
            FlowJob child = children.get(i);
            String at = path + "children[" + i + "].";
            if (child == null) {
                throw new IllegalArgumentException("`" + path + "children[" + i + "]` must not be null");
            }
            String key = child.key() == null ? Integer.toString(i) : child.key();
            if (!QueueKeys.isValidChildKey(key)) {
                throw new IllegalArgumentException("`" + at + "key` must be 1 to 64 of A-Z a-z 0-9 . _ ~ - and not "
                        + "a word the queue uses for its own keys (events, abort, children, ...), was " + key);
            }
            if (!keys.add(key)) {
                throw new IllegalArgumentException("`" + at + "key` `" + key + "` is given to two children");
            }
            specs.add(spec(child, parentId + ":" + key, at, depth, count, keyPrefix, parentTenant));
        }
        return specs;
    }

    /**
     * @param json Jackson
     * @param text JSON text a script stored
     * @return its tree
     * @throws IllegalStateException when it is not JSON (Redis holds something this code did not write)
     */
    static JsonNode parse(ObjectMapper json, String text) {
        try {
            return json.readTree(text);
        } catch (IOException e) {
            throw new IllegalStateException("not JSON: " + text, e);
        }
    }

    /** @return the job options of a spec */
    static JobOptions options(JsonNode spec) {
        return JobOptionsJson.read(spec.get("options"), "options").withJobId(spec.get("jobId").asText());
    }

    /** @return the children specs of a spec */
    static List<JsonNode> childrenOf(JsonNode spec) {
        List<JsonNode> children = new ArrayList<>();
        spec.path("children").forEach(children::add);
        return children;
    }
}
