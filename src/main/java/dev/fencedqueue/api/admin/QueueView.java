package dev.fencedqueue.api.admin;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;

import dev.fencedqueue.queue.QueueFigures;

/**
 * One queue as the operator API shows it.
 *
 * @param queue the queue name
 * @param served whether this service has a processor for it (the research queue, the fan-out queue, the no-op queue,
 *        a queue a worker of this instance runs); {@code false} for a queue jobs were added to while nothing served
 *        it: they wait until a worker for it starts
 * @param paused whether the queue is paused for the whole fleet
 * @param counts jobs per state: {@code waiting}, {@code paused} (ready jobs of a paused queue),
 *        {@code prioritized}, {@code delayed}, {@code active}, {@code completed}, {@code failed} (aborted
 *        jobs included); {@code completed} and {@code failed} count those Redis holds and those of the archive
 * @param limits the queue's fleet-wide limits
 * @param chunked whether its jobs are chunked jobs (fan-outs): they stop at a chunk boundary, can be resumed, and
 *        take a throttle
 * @param oldestWaitingAge how long its longest-waiting ready job has waited to run, seconds (0: none waits), by the
 *        Redis clock (the same figure as {@code fq_queue_oldest_waiting_age_seconds})
 * @param lastMinute the jobs that ended in the last minute ({@code completed}, {@code failed}): its throughput
 * @param archive how many of its finished jobs are in the archive (a count a few seconds old at most), or why they
 *        could not be counted; absent while the service keeps no archive
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record QueueView(String queue, boolean served, boolean paused, Map<String, Long> counts, QueueLimits limits,
        boolean chunked, double oldestWaitingAge, QueueFigures.Ended lastMinute, ArchiveCounts archive) {
}
