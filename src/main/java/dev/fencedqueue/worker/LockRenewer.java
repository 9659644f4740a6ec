package dev.fencedqueue.worker;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.worker.WorkerScripts.ExtendLocksArgs;
import io.smallrye.mutiny.Uni;
import org.jboss.logging.Logger;

/**
 * Renews the locks of all of a worker's active jobs and checks their fencing tokens in one round trip
 * ({@code extendLocks}), so a zombie learns that it lost a job at the next tick at the latest.
 */
final class LockRenewer {

    private static final Logger LOG = Logger.getLogger(LockRenewer.class);

    /** Cancels a job the worker no longer owns. */
    interface Canceller {
        void cancel(ActiveJob job, CancelReason reason);
    }

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final long lockDurationMillis;

    LockRenewer(QueueKeys keys, LuaScripts scripts, long lockDurationMillis) {
        this.keys = keys;
        this.scripts = scripts;
        this.lockDurationMillis = lockDurationMillis;
    }

    /**
     * One tick: renews the jobs' locks, cancels those the worker lost (a failed renewal counts as a lost
     * lock once the last successful renewal is older than the lock duration).
     *
     * @param workerId the worker, for the log
     * @param jobs the jobs to renew, not empty
     * @param onContext where to handle the answer (the worker's context)
     * @param canceller cancels a lost job
     */
    void tick(String workerId, Collection<ActiveJob> jobs, Executor onContext, Canceller canceller) {
        long sentAt = System.nanoTime();
        long lockNanos = lockDurationMillis * 1_000_000;
        renew(jobs).emitOn(onContext).subscribe().with(lost -> {
            for (ActiveJob job : jobs) {
                Long code = lost.get(job.id());
                if (code == null) {
                    job.renewedUntil(sentAt + lockNanos);
                } else if (!job.isFinishing() && !job.isCancelled()) {
                    LOG.warnf("worker %s: lost job %s (code %d); cancelling its pipeline", workerId, job.id(), code);
                    canceller.cancel(job, CancelReason.OWNERSHIP_LOST);
                }
            }
        }, failure -> {
            long now = System.nanoTime();
            for (ActiveJob job : jobs) {
                if (now - job.lockValidUntil() > 0 && !job.isCancelled()) {
                    LOG.warnf("worker %s: lock of job %s expired without renewal (%s); cancelling it", workerId,
                            job.id(), Failures.describe(failure));
                    canceller.cancel(job, CancelReason.LOCK_EXPIRED);
                }
            }
        });
    }

    /**
     * @param jobs the jobs to renew, not empty
     * @return the jobs the worker no longer owns, by job id, with the script's code (-1, -7 or -9)
     */
    Uni<Map<String, Long>> renew(Collection<ActiveJob> jobs) {
        return scripts.run(new ExtendLocksArgs(keys, lockDurationMillis, jobs)).map(reply -> {
            Map<String, Long> lost = new HashMap<>();
            for (int i = 0; i + 1 < reply.size(); i += 2) {
                lost.put(reply.get(i).toString(), reply.get(i + 1).toLong());
            }
            return lost;
        });
    }
}
