package dev.fencedqueue.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.Job;
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
     */
    record Activated(Job job, String lockToken) {
    }

    /**
     * The job fields an activation returns for each job, in this order ({@code JOB_FIELDS} in
     * {@code includes/activateJobs.lua}).
     */
    static final List<String> FIELDS = List.of("fencingToken", "attemptsStarted", "events", "progress", "name", "data",
            "opts", "attempts", "attemptsMade", "stalledCounter", "timestamp", "priority", "delay", "timeout",
            "failedReason");

    /**
     * Reads {@code code, now, extra, jobId, fencingToken, [value, ...], ...} (three entries per job, the last one the
     * values of {@link #FIELDS}, nil when absent) from a script reply, starting at {@code offset}. The fields the
     * script does not send because the worker knows them are filled in here: the state ({@code active}), when the
     * attempt started (the Redis clock of the reply, ms), the worker id and the lock token.
     *
     * @param reply the script's reply, must not be {@code null}
     * @param offset where the activation starts in it
     * @param queue the queue name
     * @param lockPrefix the lock token prefix the call was sent with: a job's lock token is {@code <prefix>:<jobId>}
     * @param workerId the id of the worker that sent the call
     * @return the activation
     */
    static Activation parse(Response reply, int offset, String queue, String lockPrefix, String workerId) {
        io.vertx.redis.client.Response raw = reply.getDelegate(); // no wrapper per element
        int code = raw.get(offset).toInteger();
        long nowMicros = raw.get(offset + 1).toLong();
        long extra = raw.get(offset + 2).toLong();
        int size = raw.size();
        List<Activated> jobs = size > offset + 3 ? new ArrayList<>((size - offset - 3) / 3) : List.of();
        String processedOn = size > offset + 3 ? Long.toString(nowMicros / 1000) : null;
        for (int i = offset + 3; i + 2 < size; i += 3) {
            io.vertx.redis.client.Response values = raw.get(i + 2);
            Map<String, String> hash = new HashMap<>(2 * (FIELDS.size() + 3));
            for (int f = 0; f < FIELDS.size() && f < values.size(); f++) {
                io.vertx.redis.client.Response value = values.get(f);
                if (value != null) {
                    hash.put(FIELDS.get(f), value.toString());
                }
            }
            hash.put("fencingToken", raw.get(i + 1).toString());
            hash.put("state", "active");
            hash.put("processedOn", processedOn);
            hash.put("workerId", workerId);
            String jobId = raw.get(i).toString();
            jobs.add(new Activated(Job.fromHash(queue, jobId, hash), lockPrefix + ":" + jobId));
        }
        return new Activation(code, nowMicros, extra, jobs);
    }
}
