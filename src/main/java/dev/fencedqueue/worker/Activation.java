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
 * @param now the Redis clock when the script ran, ms since the epoch
 * @param extra with code 0 the due time (ms) of the earliest delayed job or -1; with code -5 the ms until
 *        the rate-limit window resets
 * @param jobs the activated jobs
 */
record Activation(int code, long now, long extra, List<Activated> jobs) {

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
     * Reads {@code code, now, extra, jobId, fencingToken, lockToken, fieldCount, field, value, ...} from a
     * script reply, starting at {@code offset}.
     */
    static Activation parse(Response reply, int offset, String queue) {
        int code = reply.get(offset).toInteger();
        long now = reply.get(offset + 1).toLong();
        long extra = reply.get(offset + 2).toLong();
        List<Activated> jobs = new ArrayList<>();
        int i = offset + 3;
        while (i + 3 < reply.size()) {
            String jobId = reply.get(i).toString();
            long token = reply.get(i + 1).toLong();
            String lockToken = reply.get(i + 2).toString();
            int fieldCount = reply.get(i + 3).toInteger();
            Map<String, String> hash = new HashMap<>(fieldCount);
            for (int f = i + 4; f + 1 < i + 4 + fieldCount; f += 2) {
                hash.put(reply.get(f).toString(), reply.get(f + 1).toString());
            }
            jobs.add(new Activated(Job.fromHash(queue, jobId, hash, token), lockToken));
            i += 4 + fieldCount;
        }
        return new Activation(code, now, extra, jobs);
    }
}
