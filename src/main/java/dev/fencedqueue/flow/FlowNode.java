package dev.fencedqueue.flow;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A job of a flow as added: where it went and its children.
 *
 * @param queue its queue
 * @param jobId its id
 * @param children its children, in the order given
 */
public record FlowNode(String queue, String jobId, List<FlowNode> children) {

    static FlowNode of(JsonNode spec) {
        List<FlowNode> children = new ArrayList<>();
        spec.path("children").forEach(child -> children.add(of(child)));
        return new FlowNode(spec.get("queue").asText(), spec.get("jobId").asText(), List.copyOf(children));
    }
}
