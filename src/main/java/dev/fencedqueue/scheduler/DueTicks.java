package dev.fencedqueue.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.AddJobArgs;
import dev.fencedqueue.queue.JobAdder;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.TraceAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Turns the due ticks of a queue's job schedulers ({@link JobSchedulers}) into jobs, each once fleet-wide: every
 * worker of the queue looks ({@code SchedulerTicker}), and {@code produceTick} produces a tick's job only for the
 * first look that moves the scheduler past the tick (a compare-and-set on its next tick), in the same script as the
 * job's {@code addJob}. Ticks are read by the Redis clock ({@code TIME}).
 */
@ApplicationScoped
public class DueTicks {

    private final Queues queues;
    private final JobAdder adder;
    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final JobTracing tracing;
    private final StoredSchedulers store;

    /**
     * @param queues the queues of the schedulers and of their jobs, by name, not {@code null}
     * @param adder builds the ARGV of a tick's job, not {@code null}
     * @param scripts the script registry, not {@code null}
     * @param redis the shared connection, not {@code null}
     * @param json Jackson, not {@code null}
     * @param tracing the spans of jobs, not {@code null}
     */
    public DueTicks(Queues queues, JobAdder adder, LuaScripts scripts, SharedConnection redis, ObjectMapper json,
            JobTracing tracing) {
        this.queues = queues;
        this.adder = adder;
        this.scripts = scripts;
        this.redis = redis;
        this.tracing = tracing;
        this.store = new StoredSchedulers(queues, redis, json);
    }

    /**
     * Produces the jobs of the ticks that are due in a queue (at most {@code batch}), each once fleet-wide. A tick late
     * by more than {@code missedAfterMs} is missed: the scheduler's {@link JobScheduler.Missed} policy decides, and it
     * goes on from its first tick after now. A later one is produced, and the scheduler moves to its next tick, due or
     * not (so a fleet that fell behind catches up, one tick per look).
     *
     * @param keys the queue
     * @param batch most ticks to look at
     * @param missedAfterMs how late a tick may be before it counts as missed, ms
     * @return the earliest next tick left in the queue (ms since the epoch), or -1 when none; with the Redis clock;
     *         fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable (the ticks
     *         produced before stay produced)
     */
    public Uni<Due> produceDue(QueueKeys keys, int batch, long missedAfterMs) {
        return store.now().chain(now -> redis.send(Request.cmd(Command.ZRANGE).arg(keys.schedules())
                .arg("-inf").arg(now).arg("BYSCORE").arg("LIMIT").arg(0).arg(batch).arg("WITHSCORES"))
                .chain(due -> {
                    List<Uni<Integer>> ticks = new ArrayList<>();
                    for (Response pair : Replies.elements(due)) {
                        String id = pair.get(0).toString();
                        long tick = pair.get(1).toLong();
                        ticks.add(produce(keys, id, tick, now, missedAfterMs));
                    }
                    Uni<Integer> produced = ticks.isEmpty() ? Uni.createFrom().item(0)
                            : Uni.join().all(ticks).andCollectFailures().map(list -> list.stream().mapToInt(i -> i).sum());
                    return produced.chain(count -> redis.send(Request.cmd(Command.ZRANGE)
                            .arg(keys.schedules()).arg(0).arg(0).arg("WITHSCORES"))
                            .map(first -> new Due(count, Replies.elements(first).isEmpty() ? -1
                                    : Replies.elements(first).get(0).get(1).toLong(), now)));
                }));
    }

    /**
     * What {@link #produceDue} did.
     *
     * @param produced jobs produced by this call
     * @param next the earliest next tick left (ms since the epoch), -1 when none
     * @param now the Redis clock when the call began, ms since the epoch
     */
    public record Due(int produced, long next, long now) {
    }

    private Uni<Integer> produce(QueueKeys keys, String id, long tick, long now, long missedAfterMs) {
        return store.get(keys.queue(), id).chain(scheduler -> {
            if (scheduler == null) {
                return redis.send(Request.cmd(Command.ZREM).arg(keys.schedules()).arg(id)).replaceWith(0);
            }
            OptionalLong after = SchedulerTicks.next(scheduler, tick);
            boolean missed = now - tick > missedAfterMs;
            long next = missed ? SchedulerTicks.next(scheduler, now).orElse(-1) : after.orElse(-1);
            boolean produce = !missed || scheduler.missed() == JobScheduler.Missed.RUN_ONCE;
            QueueKeys jobQueue = queues.keys(scheduler.template().queue());
            // A tick's job starts a trace of its own. Every instance may try the tick; only the span of the one that
            // produced the job is ended, so exported: a span never ended is never exported.
            Span send = tracing.send(scheduler.template().queue(), Context.root(), 1)
                    .setAttribute(TraceAttributes.SCHEDULER_ID, id).setAttribute(TraceAttributes.SCHEDULER_TICK, tick);
            AddJobArgs addJob = new AddJobArgs(jobQueue, adder.args(jobQueue, scheduler.template().name(),
                    scheduler.template().data(), scheduler.template().options().withJobId(id + ":" + tick), "",
                    AddJobArgs.NO_PARENT_POLICY, id, Long.toString(tick), JobTracing.traceParent(send)));
            ProduceTickArgs call = new ProduceTickArgs(keys, id, tick, next, produce,
                    scheduler.limit() == null ? 0 : scheduler.limit(), singleFlightKey(scheduler), addJob);
            return scripts.run(call).map(reply -> {
                if (reply.get(0).toInteger() != 2) {
                    return 0;
                }
                send.setAttribute(MessagingIncubatingAttributes.MESSAGING_MESSAGE_ID, reply.get(1).toString());
                send.end();
                return 1;
            });
        });
    }

    /**
     * @return what a running job of the template's single-flight key (a fan-out's channel) does to a tick:
     *         {@code skip:<key>} or {@code refuse:<key>} as the scheduler's {@code overlap} says; "" for a template
     *         without one
     */
    private static String singleFlightKey(JobScheduler scheduler) {
        JsonNode channel = scheduler.template().data() == null ? null : scheduler.template().data().get("channel");
        if (channel == null || !channel.isTextual() || channel.asText().isEmpty()) {
            return "";
        }
        return (scheduler.overlap() == JobScheduler.Overlap.REFUSE ? "refuse:" : "skip:") + channel.asText();
    }
}
