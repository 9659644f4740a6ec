package dev.fencedqueue.api.admin;

import java.util.Map;

/**
 * One queue as the operator API shows it.
 *
 * @param queue the queue name
 * @param served whether this instance serves it (the research queue, or a queue one of its workers runs)
 * @param paused whether the queue is paused for the whole fleet
 * @param counts jobs per state: {@code waiting}, {@code paused} (ready jobs of a paused queue),
 *        {@code prioritized}, {@code delayed}, {@code active}, {@code completed}, {@code failed} (aborted
 *        jobs included)
 * @param limits the queue's fleet-wide limits
 * @param chunked whether its jobs are chunked jobs (fan-outs): they stop at a chunk boundary, can be resumed, and
 *        take a throttle
 */
public record QueueView(String queue, boolean served, boolean paused, Map<String, Long> counts, QueueLimits limits,
        boolean chunked) {
}
