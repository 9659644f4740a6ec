package dev.fencedqueue.flow;

/**
 * What {@link FlowProducer#add} did.
 *
 * @param root the flow's root as requested, with the ids of its children
 * @param created {@code true} when the root was written now; {@code false} when a job of the root's id already
 *        existed, in which case nothing of the request was written (the existing job, and whatever its own add left
 *        pending, stand)
 */
public record AddedFlow(FlowNode root, boolean created) {
}
