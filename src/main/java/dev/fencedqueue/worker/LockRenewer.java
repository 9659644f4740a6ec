package dev.fencedqueue.worker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.fencedqueue.queue.LuaScript;
import dev.fencedqueue.queue.LuaScripts;
import dev.fencedqueue.queue.QueueKeys;
import io.smallrye.mutiny.Uni;

/**
 * Renews the locks of all of a worker's active jobs and checks their fencing tokens in one round trip
 * ({@code extendLocks}), so a zombie learns that it lost a job at the next tick at the latest.
 */
final class LockRenewer {

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final long lockDurationMillis;

    LockRenewer(QueueKeys keys, LuaScripts scripts, long lockDurationMillis) {
        this.keys = keys;
        this.scripts = scripts;
        this.lockDurationMillis = lockDurationMillis;
    }

    /**
     * @param jobs the jobs to renew, not empty
     * @return the jobs the worker no longer owns, by job id, with the script's code (-1, -6, -7 or -9)
     */
    Uni<Map<String, Long>> renew(Collection<ActiveJob> jobs) {
        List<String> args = new ArrayList<>(2 + 3 * jobs.size());
        args.add(keys.prefix());
        args.add(Long.toString(lockDurationMillis));
        for (ActiveJob job : jobs) {
            args.add(job.id());
            args.add(job.lockToken);
            args.add(Long.toString(job.fencingToken()));
        }
        return scripts.run(LuaScript.EXTEND_LOCKS, List.of(keys.stalled()), args).map(reply -> {
            Map<String, Long> lost = new HashMap<>();
            for (int i = 0; i + 1 < reply.size(); i += 2) {
                lost.put(reply.get(i).toString(), reply.get(i + 1).toLong());
            }
            return lost;
        });
    }
}
