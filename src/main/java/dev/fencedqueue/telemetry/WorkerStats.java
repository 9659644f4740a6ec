package dev.fencedqueue.telemetry;

/**
 * Counters of one worker since it started.
 *
 * @param completed attempts that completed their job
 * @param failed attempts that failed (retried or not)
 * @param rejectedWrites fenced writes Redis refused because the worker no longer owned the job
 * @param cancelled pipelines the worker cancelled (ownership lost, lock expired, revoked, shutdown)
 * @param active jobs running now
 * @param stalled jobs the worker's stalled-job checks found stalled (their lock expired) and moved back to wait or
 *        failed; the check runs once per interval across the fleet, so the fleet's sum counts each stall once
 */
public record WorkerStats(long completed, long failed, long rejectedWrites, long cancelled, int active, long stalled) {
}
