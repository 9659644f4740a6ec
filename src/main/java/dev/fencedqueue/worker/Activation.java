package dev.fencedqueue.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobState;
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
     * The job fields an activation returns for each job, in this order ({@code JOB_FIELDS} in
     * {@code includes/activateJobs.lua}).
     */
    static final List<String> FIELDS = List.of("fencingToken", "attemptsStarted", "events", "progress", "name", "data",
            "opts", "attempts", "attemptsMade", "stalledCounter", "timestamp", "priority", "delay", "timeout",
            "failedReason", "checkpoint", "resumePoint", "parentKey", "schedulerId", "tick", "traceparent",
            "resumeReason");

    // Positions in FIELDS ("fencingToken", at 0, is read from the entry before the values)
    private static final int ATTEMPTS_STARTED = 1;
    private static final int EVENTS = 2;
    private static final int PROGRESS = 3;
    private static final int NAME = 4;
    private static final int DATA = 5;
    private static final int OPTS = 6;
    private static final int ATTEMPTS = 7;
    private static final int ATTEMPTS_MADE = 8;
    private static final int STALLED_COUNTER = 9;
    private static final int TIMESTAMP = 10;
    private static final int PRIORITY = 11;
    private static final int DELAY = 12;
    private static final int TIMEOUT = 13;
    private static final int FAILED_REASON = 14;
    private static final int CHECKPOINT = 15;
    private static final int RESUME_POINT = 16;
    private static final int PARENT_KEY = 17;
    private static final int SCHEDULER_ID = 18;
    private static final int TICK = 19;
    private static final int TRACE_PARENT = 20;
    private static final int RESUME_REASON = 21;

    /**
     * Reads {@code code, now, extra, jobId, fencingToken, [value, ...], ...} (three entries per job, the last one the
     * values of {@link #FIELDS}, nil when absent) from a script reply, starting at {@code offset}. The fields the
     * script does not send because the worker knows them are filled in here: the state ({@code active}), when the
     * attempt started (the Redis clock of the reply, ms), the worker id and the lock token. The values are read by
     * position, straight into the {@link Job}: this runs once per job on the event loop, and a cold JVM interprets
     * and compiles it while it serves its first jobs, so it stays small.
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
            long fencingToken = raw.get(i + 1).toLong();
            io.vertx.redis.client.Response values = raw.get(i + 2);
            String resumePoint = text(values, RESUME_POINT);
            jobs.add(new Activated(job(queue, jobId, fencingToken, values, processedOn, workerId),
                    lockPrefix + ":" + jobId, resumePoint == null || resumePoint.isEmpty() ? null : resumePoint,
                    text(values, CHECKPOINT), text(values, RESUME_REASON)));
        }
        return new Activation(code, nowMicros, extra, jobs);
    }

    private static Job job(String queue, String jobId, long fencingToken, io.vertx.redis.client.Response values,
            Long processedOn, String workerId) {
        return new Job(queue, jobId, text(values, NAME), text(values, DATA), text(values, OPTS), JobState.ACTIVE,
                fencingToken, integer(values, ATTEMPTS, 1), integer(values, ATTEMPTS_MADE, 0),
                integer(values, ATTEMPTS_STARTED, 0), integer(values, STALLED_COUNTER, 0), workerId,
                text(values, PROGRESS), null, text(values, FAILED_REASON), number(values, TIMESTAMP), processedOn,
                null, "1".equals(text(values, EVENTS)), integer(values, PRIORITY, 0), number(values, DELAY),
                number(values, TIMEOUT), Map.of(), text(values, PARENT_KEY),
                text(values, SCHEDULER_ID), text(values, TICK) == null ? null : number(values, TICK),
                text(values, TRACE_PARENT));
    }

    /** @return the value at {@code index} of {@link #FIELDS} as text, {@code null} when absent */
    private static String text(io.vertx.redis.client.Response values, int index) {
        io.vertx.redis.client.Response value = index < values.size() ? values.get(index) : null;
        return value == null ? null : value.toString();
    }

    /** @return the value at {@code index} of {@link #FIELDS} as a decimal integer, {@code absent} when absent */
    private static int integer(io.vertx.redis.client.Response values, int index, int absent) {
        String value = text(values, index);
        return value == null ? absent : Integer.parseInt(value);
    }

    /** @return the value at {@code index} of {@link #FIELDS} as a decimal long, 0 when absent */
    private static long number(io.vertx.redis.client.Response values, int index) {
        String value = text(values, index);
        return value == null ? 0L : Long.parseLong(value);
    }
}
