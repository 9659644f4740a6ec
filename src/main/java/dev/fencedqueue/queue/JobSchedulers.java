package dev.fencedqueue.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.tracing.JobTracing;
import dev.fencedqueue.tracing.TraceAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * Job schedulers (BullMQ's {@code upsertJobScheduler}, {@code removeJobScheduler}, {@code getJobSchedulers}): each
 * lives in its template's queue (spec, next tick, state), and a global index ({@code <prefix>:schedulers}, id ->
 * queue) finds it by id. Ticks are computed from the Redis clock ({@code TIME}); {@link #produceDue} turns the due ones
 * into jobs, once fleet-wide ({@code produceTick}).
 */
public final class JobSchedulers {

    /** The field of a scheduler's state hash that counts the jobs an operator ran now ({@link #runNow}). */
    private static final String RUN_NOW_JOBS = "runNowJobs";

    private final Queues queues;
    private final String index;

    JobSchedulers(Queues queues) {
        this.queues = queues;
        this.index = queues.keyPrefix() + ":schedulers";
    }

    /**
     * Creates a scheduler or changes it in place, from now on: its next tick is computed afresh.
     *
     * @param id the scheduler's id
     * @param body its spec (see {@link JobSchedulerJson})
     * @return its view; fails with {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable,
     *         and with an {@link IllegalArgumentException} naming {@code endDate} when the scheduler has no tick left
     *         (nothing is written then)
     * @throws IllegalArgumentException naming the field at fault ({@code pattern} for one that never matches a date);
     *         nothing is written then
     */
    public Uni<JobSchedulerView> upsert(String id, JsonNode body) {
        // Checks the body before anything is read or written.
        JobSchedulerJson.checkNew(JobSchedulerJson.read(id, body, 0, queues.keyPrefix()));
        return redisTime().chain(now -> queueOf(id).chain(previous -> {
            Uni<JobScheduler> existing = previous == null ? Uni.createFrom().nullItem() : stored(previous, id);
            return existing.chain(before -> {
                JobScheduler read = JobSchedulerJson.read(id, body, now, queues.keyPrefix());
                // An interval keeps its phase when changed (unless it is given a start date).
                JobScheduler scheduler = before == null || before.every() == null || read.every() == null
                        || read.startDate() != null ? read : read.withAnchor(before.anchor());
                QueueKeys keys = queues.keys(scheduler.template().queue());
                Uni<Void> moved = previous == null || previous.equals(keys.queue()) ? Uni.createFrom().voidItem()
                        : remove(queues.keys(previous), id).replaceWithVoid();
                OptionalLong next = SchedulerTicks.next(scheduler, now);
                if (next.isEmpty() && scheduler.endDate() != null) {
                    throw new IllegalArgumentException("`endDate` is past the scheduler's last tick, so it would never "
                            + "tick: " + JobSchedulerJson.text(scheduler.endDate()));
                }
                return moved.chain(() -> queues.scripts().run(SchedulerStateArgs.upsert(keys, id,
                                JobSchedulerJson.write(scheduler).toString(), next.orElse(-1))))
                        .chain(() -> queues.redis().send(Request.cmd(Command.HSET).arg(index).arg(id).arg(keys.queue())))
                        .chain(() -> view(keys, id));
            });
        }));
    }

    /**
     * @param id a scheduler's id
     * @return its view, or {@code null} when there is none
     */
    public Uni<JobSchedulerView> get(String id) {
        return queueOf(id).chain(queue -> queue == null ? Uni.createFrom().nullItem() : view(queues.keys(queue), id));
    }

    /** @return every scheduler, by id */
    public Uni<List<JobSchedulerView>> list() {
        return queues.redis().send(Request.cmd(Command.HGETALL).arg(index)).chain(reply -> {
            Map<String, String> all = new TreeMap<>(Replies.toStringMap(reply));
            if (all.isEmpty()) {
                return Uni.createFrom().item(List.<JobSchedulerView>of());
            }
            List<Uni<JobSchedulerView>> views = new ArrayList<>();
            all.forEach((id, queue) -> views.add(view(queues.keys(queue), id)));
            return Uni.join().all(views).andFailFast()
                    .map(list -> list.stream().filter(Objects::nonNull).toList());
        });
    }

    /**
     * Removes a scheduler; the jobs it produced stay.
     *
     * @param id its id
     * @return whether there was one
     */
    public Uni<Boolean> remove(String id) {
        return queueOf(id).chain(queue -> queue == null ? Uni.createFrom().item(false)
                : remove(queues.keys(queue), id).call(() -> queues.redis().send(Request.cmd(Command.HDEL).arg(index)
                        .arg(id))).map(removed -> removed == 1));
    }

    /**
     * Pauses a scheduler (no tick produces anything) or resumes it from its first tick after now.
     *
     * @param id its id
     * @param paused {@code true} to pause
     * @return its view, or {@code null} when there is none
     */
    public Uni<JobSchedulerView> pause(String id, boolean paused) {
        return queueOf(id).chain(queue -> {
            if (queue == null) {
                return Uni.createFrom().nullItem();
            }
            QueueKeys keys = queues.keys(queue);
            return Uni.combine().all().unis(stored(queue, id), redisTime()).asTuple().chain(both -> {
                long next = both.getItem1() == null ? -1 : SchedulerTicks.next(both.getItem1(), both.getItem2()).orElse(-1);
                return queues.scripts().run(SchedulerStateArgs.pause(keys, id, paused, next));
            }).chain(() -> view(keys, id));
        });
    }

    /**
     * Produces a job of the scheduler now, beside its ticks (it does not count as one, but as one of its
     * {@link JobSchedulerView#jobs()}): id {@code <id>:<now>}, now from the Redis clock; it becomes the scheduler's
     * last job.
     *
     * @param id its id
     * @return the job's id, or {@code null} when there is no such scheduler
     */
    public Uni<String> runNow(String id) {
        return queueOf(id).chain(queue -> queue == null ? Uni.createFrom().nullItem()
                : Uni.combine().all().unis(stored(queue, id), redisTime()).asTuple().chain(both -> {
                    JobScheduler scheduler = both.getItem1();
                    if (scheduler == null) {
                        return Uni.createFrom().nullItem();
                    }
                    long now = both.getItem2();
                    JobQueue target = queues.queue(scheduler.template().queue());
                    return target.addScheduled(scheduler.template().name(), scheduler.template().data(),
                            scheduler.template().options().withJobId(id + ":" + now), id, now).map(AddResult::jobId)
                            .call(jobId -> queues.redis().send(Request.cmd(Command.HSET)
                                    .arg(queues.keys(queue).schedulerState(id)).arg("lastJobId").arg(jobId)))
                            .call(jobId -> queues.redis().send(Request.cmd(Command.HINCRBY)
                                    .arg(queues.keys(queue).schedulerState(id)).arg(RUN_NOW_JOBS).arg(1)));
                }));
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
     * @return the earliest next tick left in the queue (ms since the epoch), or -1 when none; with the Redis clock
     */
    public Uni<Due> produceDue(QueueKeys keys, int batch, long missedAfterMs) {
        return redisTime().chain(now -> queues.redis().send(Request.cmd(Command.ZRANGE).arg(keys.schedules())
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
                    return produced.chain(count -> queues.redis().send(Request.cmd(Command.ZRANGE)
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
        return stored(keys.queue(), id).chain(scheduler -> {
            if (scheduler == null) {
                return queues.redis().send(Request.cmd(Command.ZREM).arg(keys.schedules()).arg(id)).replaceWith(0);
            }
            OptionalLong after = SchedulerTicks.next(scheduler, tick);
            boolean missed = now - tick > missedAfterMs;
            long next = missed ? SchedulerTicks.next(scheduler, now).orElse(-1) : after.orElse(-1);
            boolean produce = !missed || scheduler.missed() == JobScheduler.Missed.RUN_ONCE;
            JobQueue target = queues.queue(scheduler.template().queue());
            // A tick's job starts a trace of its own. Every instance may try the tick; only the span of the one that
            // produced the job is ended, so exported: a span never ended is never exported.
            Span send = queues.tracing().send(target.name(), Context.root(), 1)
                    .setAttribute(TraceAttributes.SCHEDULER_ID, id).setAttribute(TraceAttributes.SCHEDULER_TICK, tick);
            List<String> addJobArgs = target.addJob().args(scheduler.template().name(), scheduler.template().data(),
                    scheduler.template().options().withJobId(id + ":" + tick), "", ParentPolicy.FAIL, id,
                    Long.toString(tick), JobTracing.traceParent(send));
            ProduceTickArgs call = new ProduceTickArgs(keys, id, tick, next, produce,
                    scheduler.limit() == null ? 0 : scheduler.limit(), singleFlightKey(scheduler),
                    target.addJob().keys(), addJobArgs);
            return queues.scripts().run(call).map(reply -> {
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

    private Uni<Integer> remove(QueueKeys keys, String id) {
        return queues.scripts().run(SchedulerStateArgs.remove(keys, id)).map(Response::toInteger);
    }

    private Uni<JobSchedulerView> view(QueueKeys keys, String id) {
        Uni<Response> spec = queues.redis().send(Request.cmd(Command.HGET).arg(keys.schedulers()).arg(id));
        Uni<Response> next = queues.redis().send(Request.cmd(Command.ZSCORE).arg(keys.schedules()).arg(id));
        Uni<Response> state = queues.redis().send(Request.cmd(Command.HGETALL).arg(keys.schedulerState(id)));
        return Uni.combine().all().unis(spec, next, state).asTuple().chain(all -> {
            if (all.getItem1() == null) {
                return Uni.createFrom().nullItem();
            }
            JsonNode stored = FlowSpecs.parse(queues.json(), all.getItem1().toString());
            Map<String, String> fields = Replies.toStringMap(all.getItem3());
            String lastJobId = fields.get("lastJobId");
            Uni<String> lastState = lastJobId == null ? Uni.createFrom().nullItem()
                    : queues.redis().send(Request.cmd(Command.HGET).arg(keys.job(lastJobId)).arg("state"))
                            .map(reply -> reply == null ? null : reply.toString());
            String tz = "Z".equals(text(stored, "tz")) ? "UTC" : text(stored, "tz"); // "Z": written by older versions
            Long nextTick = all.getItem2() == null ? null : all.getItem2().toLong();
            return lastState.map(lastJobState -> new JobSchedulerView(id, keys.queue(), text(stored, "pattern"),
                    stored.has("every") ? stored.get("every").asLong() : null, tz,
                    text(stored, "startDate"), text(stored, "endDate"),
                    stored.has("limit") ? stored.get("limit").asInt() : null, text(stored, "missed"),
                    text(stored, "overlap"), nextTick, JobSchedulerView.nextAt(nextTick, tz),
                    "1".equals(fields.get("paused")), Long.parseLong(fields.getOrDefault("ticks", "0")),
                    Long.parseLong(fields.getOrDefault("ticks", "0")) + Long.parseLong(fields.getOrDefault(RUN_NOW_JOBS,
                            "0")), lastJobId,
                    lastJobState, fields.containsKey("skipped") ? Long.valueOf(fields.get("skipped")) : null,
                    fields.get("skippedBecause"), fields.containsKey("refused") ? Long.valueOf(fields.get("refused"))
                            : null, fields.get("refusedReason"), stored.get("template")));
        });
    }

    private static String text(JsonNode node, String field) {
        return node.has(field) ? node.get(field).asText() : null;
    }

    private Uni<JobScheduler> stored(String queue, String id) {
        return queues.redis().send(Request.cmd(Command.HGET).arg(queues.keys(queue).schedulers()).arg(id))
                .map(spec -> spec == null ? null
                        : JobSchedulerJson.stored(FlowSpecs.parse(queues.json(), spec.toString()), queues.keyPrefix()));
    }

    private Uni<String> queueOf(String id) {
        return queues.redis().send(Request.cmd(Command.HGET).arg(index).arg(id))
                .map(queue -> queue == null ? null : queue.toString());
    }

    /** @return the Redis clock, ms since the epoch */
    Uni<Long> redisTime() {
        return queues.redis().send(Request.cmd(Command.TIME))
                .map(time -> time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000);
    }
}
