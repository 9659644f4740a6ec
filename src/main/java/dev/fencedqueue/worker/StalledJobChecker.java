package dev.fencedqueue.worker;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntConsumer;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.worker.WorkerScripts.StalledJobsArgs;
import io.smallrye.mutiny.Uni;
import org.jboss.logging.Logger;

/**
 * Runs the stalled-job check ({@code moveStalledJobsToWait}). Every worker calls it every stalled
 * interval; the script itself makes sure it runs once per interval across the fleet.
 */
final class StalledJobChecker {

    private static final Logger LOG = Logger.getLogger(StalledJobChecker.class);

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    private final WorkerOptions options;
    private final Function<QueueKeys, Uni<Void>> afterCheck;
    private final IntConsumer onStalled;

    /**
     * @param keys the queue's key layout
     * @param scripts the script registry
     * @param maxStreamLength the job event stream's maximum length, entries
     * @param maxQueueEvents the queue event stream's maximum length, entries
     * @param options the worker's options: how often the check runs, how often a job may stall
     * @param afterCheck run after each check, before its result is logged: what follows it for the features beside
     *        the worker (flows sweep the queue)
     * @param onStalled told how many jobs each check found stalled (when it found some)
     */
    StalledJobChecker(QueueKeys keys, LuaScripts scripts, int maxStreamLength, int maxQueueEvents,
            WorkerOptions options, Function<QueueKeys, Uni<Void>> afterCheck, IntConsumer onStalled) {
        this.keys = keys;
        this.scripts = scripts;
        this.maxStreamLength = maxStreamLength;
        this.maxQueueEvents = maxQueueEvents;
        this.options = options;
        this.afterCheck = afterCheck;
        this.onStalled = onStalled;
    }

    /** @return the jobs found stalled, by id, with where they went: {@code waiting} or {@code failed} */
    Uni<Map<String, String>> check() {
        return scripts.run(new StalledJobsArgs(keys, options.maxStalledCount(), options.stalledInterval(),
                        maxStreamLength, maxQueueEvents))
                .map(reply -> {
                    Map<String, String> stalled = new LinkedHashMap<>();
                    for (int i = 0; i + 1 < reply.size(); i += 2) {
                        stalled.put(reply.get(i).toString(), reply.get(i + 1).toString());
                    }
                    return stalled;
                });
    }

    /**
     * Runs {@link #check()} once in the background and logs the jobs it found stalled; a failed check is
     * only logged (at debug), the next interval runs it again. Before the log, what follows the check for features
     * beside the worker (flows sweep the queue, delivering the endings of the children this check failed among
     * others).
     */
    void checkAndLog() {
        check().eventually(() -> afterCheck.apply(keys)).subscribe().with(
                stalled -> {
                    stalled.forEach((jobId, outcome) -> LOG.warnf("queue %s: job %s stalled, moved to %s", keys.queue(),
                            jobId, outcome));
                    if (!stalled.isEmpty()) {
                        onStalled.accept(stalled.size());
                    }
                },
                failure -> LOG.debugf("stalled-job check of queue %s failed: %s", keys.queue(), Failures.describe(failure)));
    }
}
