package dev.fencedqueue.api.admin;

import dev.fencedqueue.flow.FlowNode;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The answer to {@code POST /admin/flows}: the flow's root as added (201), or as it already was (200), with its
 * children's ids, and what the operator should know about it.
 *
 * @param queue the root's queue
 * @param jobId the root's id
 * @param children its children, in the order given (each {@code {"queue", "jobId", "children"}})
 * @param created {@code true} when the flow was added now, {@code false} when the same flow existed (nothing added)
 * @param warnings one per queue of the flow that no instance of this service serves (its jobs wait until a worker
 *        for it starts); absent when there is none
 */
public record FlowAdded(String queue, String jobId, List<FlowNode> children, boolean created,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> warnings) {

    static FlowAdded of(FlowNode root, boolean created, List<String> warnings) {
        return new FlowAdded(root.queue(), root.jobId(), root.children(), created, List.copyOf(warnings));
    }
}
