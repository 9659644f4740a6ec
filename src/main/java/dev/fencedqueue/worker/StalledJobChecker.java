package dev.fencedqueue.worker;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntConsumer;

import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.QueueContext;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.worker.WorkerScripts.StalledJobsArgs;
import io.smallrye.mutiny.Uni;
import org.jboss.logging.Logger;

/**
 * Runs the stalled-job check ({@code moveStalledJobsToWait}). Every worker calls it every stalled
 * interval; the script itself makes sure it runs once per interval across the fleet.
 */
final class StalledJobChecker {

    private static final Logger LOG = Logger.getLogger(StalledJobChecker.class);

    private final QueueContext ctx;
    private final QueueKeys keys;
    private final WorkerOptions options;
    private final Function<QueueKeys, Uni<Void>> afterCheck;
    private final IntConsumer onStalled;

    /**
     * @param afterCheck run after each check, before its result is logged: what follows it for the features beside
     *        the worker (flows sweep the queue)
     * @param onStalled told how many jobs each check found stalled (when it found some)
     */
    StalledJobChecker(QueueContext ctx, WorkerOptions options, Function<QueueKeys, Uni<Void>> afterCheck,
            IntConsumer onStalled) {
        this.onStalled = onStalled;
        this.ctx = ctx;
        this.keys = ctx.keys();
        this.options = options;
        this.afterCheck = afterCheck;
    }

    /** @return the jobs found stalled, by id, with where they went: {@code waiting} or {@code failed} */
    Uni<Map<String, String>> check() {
        return ctx.scripts().run(new StalledJobsArgs(ctx, options.maxStalledCount(), options.stalledInterval()))
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
