package dev.fencedqueue.redis;

import java.time.Duration;

import dev.fencedqueue.Failures;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * What a write that must be durable waits for before it counts, as the one Redis command sent after it on the same
 * connection: {@code WAIT <replicas> <timeout ms>} (that many replicas have received it), or, with
 * {@code fq.redis.wait.aof}, {@code WAITAOF 1 <replicas> <timeout ms>} (Redis 7.2+: the master and that many replicas
 * have written it to their append-only file and {@code fsync}ed it). Both are described in Redis's command reference.
 * The number of replicas is {@code fq.redis.wait.replicas}, or with {@code auto} what {@link ReplicaTracker} says at the
 * time of the write: a caller takes it once with {@link #replicas()} and passes it to the other methods.
 */
final class DurabilityWait {

    /** Redis's client library here (Vert.x 4.5) predates {@code WAITAOF}: the command as Redis 7.2 defines it. */
    private static final Command WAITAOF = Command.create("waitaof");

    private final RedisKeysConfig.WaitReplicas setting;
    private final ReplicaTracker tracker;
    private final boolean aof;
    private final Duration timeout;

    DurabilityWait(RedisKeysConfig config, ReplicaTracker tracker) {
        this.setting = config.waitFor().replicas();
        this.tracker = tracker;
        this.aof = config.waitFor().aof();
        this.timeout = config.waitFor().timeout();
    }

    /** @return the replicas a write waits for now, 0 or more */
    int replicas() {
        return tracker.replicas(System.nanoTime() / 1_000_000);
    }

    /**
     * @param replicas what {@link #replicas()} said
     * @return whether nothing is waited for (no replica, and {@code wait-aof} off)
     */
    boolean none(int replicas) {
        return replicas == 0 && !aof;
    }

    /** @return the longest the wait may take ({@code fq.redis.wait.timeout}) */
    Duration timeout() {
        return timeout;
    }

    /**
     * @param replicas what {@link #replicas()} said
     * @return the command to send after the writes, on their connection
     */
    Request request(int replicas) {
        return aof
                ? Request.cmd(WAITAOF).arg(1).arg(replicas).arg(timeout.toMillis())
                : Request.cmd(Command.WAIT).arg(replicas).arg(timeout.toMillis());
    }

    /**
     * Checks the reply of {@link #request}.
     *
     * @param reply {@code WAIT}'s integer (replicas that acknowledged), or {@code WAITAOF}'s array of two integers
     *        (1 when the master's AOF has it, then the replicas whose AOF has it)
     * @param replicas what {@link #replicas()} said
     * @throws NotReplicatedException when fewer than asked for acknowledged in time
     */
    void check(Response reply, int replicas) {
        long local = aof ? reply.get(0).toLong() : 1;
        long acknowledged = aof ? reply.get(1).toLong() : reply.toLong();
        if (local < 1 || acknowledged < replicas) {
            String asked = setting.auto() ? "the " + replicas + " replica(s) fq.redis.wait.replicas=auto asks for now"
                    : "the " + replicas + " replica(s) asked for";
            throw new NotReplicatedException(aof
                    ? "the write reached the append-only file of " + (local < 1 ? "no" : "the") + " master and of "
                            + acknowledged + " of " + asked + " (fq.redis.wait.aof, fq.redis.wait.replicas) within "
                            + "fq.redis.wait.timeout: a crash or a failover may lose it"
                    : "the write reached " + acknowledged + " of " + asked + " (fq.redis.wait.replicas) within "
                            + "fq.redis.wait.timeout: it may not survive a failover");
        }
    }

    /**
     * @param error the error Redis answered the wait with
     * @return the failure to report: with {@code wait-aof}, Redis refuses {@code WAITAOF} when it is older than 7.2
     *         ({@code unknown command}) or its {@code appendonly} is off; the write was applied but is not durable
     */
    NotReplicatedException refused(Throwable error) {
        return new NotReplicatedException("Redis refused " + (aof ? "WAITAOF" : "WAIT") + ": " + Failures.describe(error)
                + (aof ? " (fq.redis.wait.aof needs Redis 7.2 or later with appendonly yes)" : ""));
    }
}
