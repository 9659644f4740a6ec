package dev.fencedqueue.redis;

import java.time.Duration;

import dev.fencedqueue.redis.RedisKeysConfig.WaitReplicas;

/**
 * How many replicas a new job waits for ({@code fq.redis.wait.replicas}): the configured number, or with {@code auto},
 * one while the master has a replica in sync, and none on a lone Redis. A master that just lost its last replica is not
 * taken for a lone one at once: its replica may have been promoted by a failover the service has not followed yet, and
 * a job accepted on the old master then is lost when Sentinel demotes it. So {@code auto} keeps waiting for one replica
 * (the job is refused rather than lost) until the service moved to another master, or the Sentinels, all of them
 * asked after the loss, still name this master and none is failing it over, or {@link WaitReplicas#HOLD_SECONDS} have
 * passed. It also waits for one while a Sentinel is failing the master over. A master seen for the first time starts
 * afresh (after a failover the new master has no replica until the old one resynchronizes from it).
 *
 * <p>Thread-safe. Times are in ms, from a monotonic clock the caller passes.
 */
final class ReplicaTracker {

    private static final long HOLD_MS = Duration.ofSeconds(WaitReplicas.HOLD_SECONDS).toMillis();

    private final WaitReplicas setting;
    private final boolean cluster;
    private String runId = "";
    private int onlineReplicas;
    private long lostAt = -1;
    private boolean failingOver;

    /**
     * @param setting {@code fq.redis.wait.replicas}
     * @param cluster whether the service runs on a Redis Cluster, where {@code auto} waits for none (the client cannot
     *        send {@code WAIT} to the node that took the write)
     */
    ReplicaTracker(WaitReplicas setting, boolean cluster) {
        this.setting = setting;
        this.cluster = cluster;
    }

    /**
     * @param state what the server the shared connection reaches said of itself
     * @param now the time of the answer, ms
     */
    synchronized void observe(ServerState state, long now) {
        if (!state.runId().equals(runId)) {
            runId = state.runId();
            lostAt = -1;
            failingOver = false;
        } else if (onlineReplicas > 0 && state.onlineReplicas() == 0) {
            lostAt = now;
        }
        onlineReplicas = state.onlineReplicas();
    }

    /**
     * @param view what the Sentinels said
     * @param askedAt when they were asked, ms (before their answers)
     */
    synchronized void observe(SentinelView view, long askedAt) {
        failingOver = view.failoverInProgress() && view.runId().equals(runId);
        if (lostAt >= 0 && askedAt > lostAt && view.allAnswered() && !view.failoverInProgress()
                && view.runId().equals(runId)) {
            lostAt = -1; // every Sentinel still names this master: the replica went away for another reason
        }
    }

    /**
     * @param now the time, ms
     * @return the replicas a new job waits for now, 0 or more
     */
    synchronized int replicas(long now) {
        if (!setting.auto()) {
            return setting.count();
        }
        if (cluster) {
            return 0;
        }
        boolean holding = lostAt >= 0 && now - lostAt < HOLD_MS;
        return onlineReplicas > 0 || holding || failingOver ? 1 : 0;
    }

    /** @return the replicas in sync the master had when last asked */
    synchronized int onlineReplicas() {
        return onlineReplicas;
    }
}
