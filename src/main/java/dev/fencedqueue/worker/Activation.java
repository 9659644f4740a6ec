package dev.fencedqueue.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.TenantIds;
import io.vertx.mutiny.redis.client.Response;

/**
 * The outcome of an activation (from {@code moveToActive}, or the fetch-next part of
 * {@code moveToCompleted}/{@code moveToFailed}).
 *
 * @param code 1 jobs activated, 0 none ready, -4 queue paused, -5 rate limited, -10 global concurrency reached
 * @param nowMicros the Redis clock when the script ran, µs since the epoch
 * @param extra with code 0, and with code 1 when fewer jobs were ready than asked for, the due time (ms) of
 *        the earliest delayed job, or -1; with code -5 the ms until the rate-limit window resets
 * @param jobs the activated jobs
 */
record Activation(int code, long nowMicros, long extra, List<Activated> jobs) {

    static final int ACTIVATED = 1;
    static final int NONE_READY = 0;
    static final int PAUSED = -4;
    static final int RATE_LIMITED = -5;
    static final int CONCURRENCY_REACHED = -10;

    /**
     * One activated job.
     *
     * @param job the job, now active
     * @param lockToken its lock token
     * @param resumePoint the id of the last event the job's stream held when this run was activated, or {@code null}
     *        when it held none (or the job keeps no stream)
     * @param checkpoint the last checkpoint an earlier run committed (JSON text), or {@code null} for none
     * @param resumeReason why the job was last sent back to wait ({@code takeover}, {@code retry} or
     *        {@code children}, as the script that did so wrote it), or {@code null} when it never was
     */
    record Activated(Job job, String lockToken, String resumePoint, String checkpoint, String resumeReason) {
    }

    /**
     * Reads {@code code, now, extra, jobId, fencingToken, [name, value, ...], ...} (three entries per job: its id, its
     * fencing token as decimal text, and its hash after activation as {@code HGETALL} gives it, see
     * {@code includes/activateJobs.lua}) from a script reply, starting at {@code offset}. What the worker knows itself
     * is taken from what it knows, not from the hash: the state ({@code active}), when the attempt started (the Redis
     * clock of the reply, ms), the worker id and the lock token. This runs once per job on the event loop, and a cold
     * JVM interprets and compiles it while it serves its first jobs, so it stays small.
     *
     * @param reply the script's reply, must not be {@code null}
     * @param offset where the activation starts in it
     * @param queue the queue name
     * @param lockPrefix the lock token prefix the call was sent with: a job's lock token is {@code <prefix>:<jobId>}
     * @param workerId the id of the worker that sent the call
     * @return the activation
     * @throws NumberFormatException if a numeric field holds something else than a decimal integer
     */
    static Activation parse(Response reply, int offset, String queue, String lockPrefix, String workerId) {
        io.vertx.redis.client.Response raw = reply.getDelegate(); // no wrapper per element
        int code = raw.get(offset).toInteger();
        long nowMicros = raw.get(offset + 1).toLong();
        long extra = raw.get(offset + 2).toLong();
        int size = raw.size();
        if (size <= offset + 3) {
            return new Activation(code, nowMicros, extra, List.of());
        }
        List<Activated> jobs = new ArrayList<>((size - offset - 3) / 3);
        Long processedOn = nowMicros / 1000;
        for (int i = offset + 3; i + 2 < size; i += 3) {
            String jobId = raw.get(i).toString();
            long fencingToken = Long.parseLong(raw.get(i + 1).toString());
            jobs.add(new Fields(raw.get(i + 2)).activated(queue, jobId, fencingToken, processedOn, workerId,
                    lockPrefix + ":" + jobId));
        }
        return new Activation(code, nowMicros, extra, jobs);
    }

    /** The fields of one activated job that a run needs, read from its hash's {@code HGETALL}. */
    private static final class Fields {

        private String name;
        private String data;
        private String opts;
        private String failedReason;
        private String checkpoint;
        private String resumePoint;
        private String parentKey;
        private String schedulerId;
        private String traceParent;
        private String resumeReason;
        private int attempts = 1;
        private int attemptsMade;
        private int attemptsStarted;
        private int stalledCounter;
        private int priority;
        private long timestamp;
        private long delay;
        private long timeout;
        private Long tick;
        private boolean events;
        private String tenant;

        Fields(io.vertx.redis.client.Response all) {
            for (int i = 0, size = all.size(); i + 1 < size; i += 2) {
                io.vertx.redis.client.Response value = all.get(i + 1);
                if (value != null) {
                    read(all.get(i).toString(), value.toString());
                }
            }
        }

        private void read(String field, String value) {
            switch (field) {
                case "name" -> name = value;
                case "data" -> data = value;
                case "opts" -> opts = value;
                case "attempts" -> attempts = Integer.parseInt(value);
                case "attemptsMade" -> attemptsMade = Integer.parseInt(value);
                case "attemptsStarted" -> attemptsStarted = Integer.parseInt(value);
                case "stalledCounter" -> stalledCounter = Integer.parseInt(value);
                case "timestamp" -> timestamp = Long.parseLong(value);
                case "priority" -> priority = Integer.parseInt(value);
                case "delay" -> delay = Long.parseLong(value);
                case "timeout" -> timeout = Long.parseLong(value);
                case "events" -> events = "1".equals(value);
                case "failedReason" -> failedReason = value;
                case "checkpoint" -> checkpoint = value;
                case "resumePoint" -> resumePoint = value.isEmpty() ? null : value;
                case "parentKey" -> parentKey = value;
                case "schedulerId" -> schedulerId = value;
                case "tick" -> tick = Long.parseLong(value);
                case "traceparent" -> traceParent = value;
                case "resumeReason" -> resumeReason = value;
                case "tenant" -> tenant = value;
                default -> {
                    // not needed by a run, or known to the worker itself (state, workerId, lockToken, processedOn...)
                }
            }
        }

        Activated activated(String queue, String jobId, long fencingToken, Long processedOn, String workerId,
                String lockToken) {
            Job job = new Job(queue, jobId, name, data, opts, JobState.ACTIVE, fencingToken, attempts, attemptsMade,
                    attemptsStarted, stalledCounter, workerId, null, null, failedReason, timestamp, processedOn, null,
                    events, priority, delay, timeout, Map.of(), Map.of(), parentKey, schedulerId, tick, traceParent,
                    TenantIds.orDefault(tenant));
            return new Activated(job, lockToken, resumePoint, checkpoint, resumeReason);
        }
    }
}
