package dev.fencedqueue.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Reconnect;
import dev.fencedqueue.redis.RedisFailures;
import dev.fencedqueue.worker.WorkerScripts.MoveToCompletedArgs;
import dev.fencedqueue.worker.WorkerScripts.NextJobs;
import io.vertx.mutiny.redis.client.Response;

/**
 * Writes the completions a worker's jobs reach during one turn of its context with one
 * {@code moveToCompleted} call, which also activates the next jobs for all the slots they free: the first
 * completion of a turn schedules the write behind the tasks already queued on the context (such as the
 * other replies of the same socket read), so a busy worker pays one script call and one round trip for
 * several jobs, and an idle one waits for nothing. Each job is still checked against its own fencing
 * token and lock inside the script. Confined to the worker's context: a job's outcome is handed to its
 * {@link Written} on that context, all of one write's jobs in one task; no {@code Uni} is built per
 * job (each would capture and restore the thread context of the caller).
 */
final class CompletionBatcher {

    /** Told how a finishing write of one job ended, on the worker's context. */
    interface Written {

        /**
         * @param code 0 completed or failed for good, 1 failed and retried later, negative when the worker no longer
         *        owns the job (-1, -7, -9; nothing was written)
         * @param next the jobs activated for the worker in the same round trip
         */
        void written(long code, Activation next);

        /** @param failure why the write failed for good (Redis unreachable for longer than the lock duration) */
        void failed(Throwable failure);
    }

    /**
     * Most jobs completed by one script call: enough to spread the call's fixed cost (about a third of a
     * one-job call), few enough that a worker with many slots keeps several calls in flight, so that Redis
     * runs one while the worker handles the replies of another instead of the two taking turns.
     */
    static final int MAX_JOBS = 16;

    /** One completion waiting for the write. */
    private record Pending(ActiveJob job, String returnValue, String event, int fetch, Written written) {
    }

    private final QueueKeys keys;
    private final LuaScripts scripts;
    private final WorkerOptions options;
    private final Executor onContext;
    /** The script's KEYS and the ARGV that are the same in every call, built once (not per call). */
    private final List<String> scriptKeys;
    private final String streamLength;
    private final String queueEvents;
    private List<Pending> pending = new ArrayList<>();

    /**
     * @param keys the queue's key layout
     * @param scripts the script registry
     * @param maxStreamLength the job event stream's maximum length, entries
     * @param maxQueueEvents the queue event stream's maximum length, entries
     * @param options the worker's options
     * @param onContext runs a task on the worker's context
     */
    CompletionBatcher(QueueKeys keys, LuaScripts scripts, int maxStreamLength, int maxQueueEvents,
            WorkerOptions options, Executor onContext) {
        this.keys = keys;
        this.scripts = scripts;
        this.options = options;
        this.onContext = onContext;
        this.scriptKeys = MoveToCompletedArgs.keysOf(keys);
        this.streamLength = Integer.toString(maxStreamLength);
        this.queueEvents = Integer.toString(maxQueueEvents);
    }

    /**
     * Queues a completion; call on the worker's context.
     *
     * @param job the job
     * @param returnValue its return value (JSON)
     * @param event the data of its {@code completed} event (JSON)
     * @param fetch how many next jobs to activate for the slots this completion frees
     * @param written told on the worker's context: the outcome for this job (the first successful job of a write
     *        carries the activation, the others an activation without jobs), or the failure when the write failed
     *        for good
     */
    void complete(ActiveJob job, String returnValue, String event, int fetch, Written written) {
        pending.add(new Pending(job, returnValue, event, fetch, written));
        if (pending.size() == 1) {
            onContext.execute(this::flush);
        } else if (pending.size() >= MAX_JOBS) {
            flush();
        }
    }

    private void flush() {
        if (pending.isEmpty()) {
            return;
        }
        List<Pending> batch = pending;
        pending = new ArrayList<>();
        int fetch = 0;
        List<MoveToCompletedArgs.Completed> jobs = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            fetch += p.fetch;
            jobs.add(new MoveToCompletedArgs.Completed(p.job, p.returnValue, p.event));
        }
        String lockPrefix = JobFetcher.lockPrefix();
        MoveToCompletedArgs call = new MoveToCompletedArgs(scriptKeys, keys.prefix(), streamLength, queueEvents,
                new NextJobs(options.workerId(), fetch, lockPrefix, options.lockDuration()), jobs);
        scripts.run(call, reply -> {
            if (reply.succeeded()) {
                onContext.execute(() -> deliver(batch, reply.result(), lockPrefix));
            } else if (RedisFailures.isConnectionFailure(reply.cause())) {
                // Sent again (the script's finish record makes that safe) while Redis is unreachable, for up to the
                // lock duration (back-off from 100 ms to 2 s)
                Reconnect.finishing(scripts.run(call), RedisFailures::isConnectionFailure, options.lockDuration())
                        .subscribe().with(retried -> onContext.execute(() -> deliver(batch, retried, lockPrefix)),
                                failure -> failed(batch, failure));
            } else {
                failed(batch, reply.cause());
            }
        });
    }

    private void failed(List<Pending> batch, Throwable failure) {
        onContext.execute(() -> batch.forEach(p -> p.written.failed(failure)));
    }

    private void deliver(List<Pending> batch, Response reply, String lockPrefix) {
        Response codes = reply.get(0);
        Activation next = Activation.parse(reply, 1, keys.queue(), lockPrefix, options.workerId());
        Activation none = new Activation(next.code() == Activation.ACTIVATED ? Activation.NONE_READY : next.code(),
                next.nowMicros(), -1, List.of());
        boolean handedOut = false;
        for (int i = 0; i < batch.size(); i++) {
            long code = codes.get(i).toLong();
            boolean carries = code == 0 && !handedOut;
            handedOut |= carries;
            batch.get(i).written.written(code, carries ? next : none);
        }
    }
}
