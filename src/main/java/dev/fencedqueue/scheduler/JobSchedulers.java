package dev.fencedqueue.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.queue.AddJobArgs;
import dev.fencedqueue.queue.AddResult;
import dev.fencedqueue.queue.JobAdder;
import dev.fencedqueue.queue.JobOptions;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Job schedulers (BullMQ's {@code upsertJobScheduler}, {@code removeJobScheduler}, {@code getJobSchedulers}): each
 * lives in its template's queue (spec, next tick, state), and a global index ({@code <prefix>:schedulers}, id ->
 * queue) finds it by id. Ticks are computed from the Redis clock ({@code TIME}); {@link DueTicks} turns the due ones
 * into jobs, once fleet-wide ({@code produceTick}). Every method fails with
 * {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable.
 */
@ApplicationScoped
public class JobSchedulers {

    private final Queues queues;
    private final JobAdder adder;
    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final ObjectMapper json;
    private final StoredSchedulers store;
    private final String index;

    /**
     * @param queues the queues of the schedulers and of their jobs, by name, not {@code null}
     * @param adder adds a scheduler's jobs run now, not {@code null}
     * @param scripts the script registry, not {@code null}
     * @param redis the shared connection, not {@code null}
     * @param json Jackson, not {@code null}
     */
    public JobSchedulers(Queues queues, JobAdder adder, LuaScripts scripts, SharedConnection redis, ObjectMapper json) {
        this.queues = queues;
        this.adder = adder;
        this.scripts = scripts;
        this.redis = redis;
        this.json = json;
        this.store = new StoredSchedulers(queues, redis, json);
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
        return upsert(id, body, queue -> JobOptions.defaults());
    }

    /**
     * Creates a scheduler or changes it in place, as {@link #upsert(String, JsonNode)} does, its template's options over
     * the defaults of its queue.
     *
     * @param id the scheduler's id
     * @param body its spec (see {@link JobSchedulerJson})
     * @param defaults a queue's options for a job that names none (a research job gets {@code POST /research/start}'s),
     *        must not be {@code null}
     * @return its view, as {@link #upsert(String, JsonNode)} says
     * @throws IllegalArgumentException naming the field at fault; nothing is written then
     */
    public Uni<JobSchedulerView> upsert(String id, JsonNode body, Function<String, JobOptions> defaults) {
        // Checks the body before anything is read or written.
        JobSchedulerJson.checkNew(JobSchedulerJson.read(id, body, 0, queues.keyPrefix(), defaults));
        return store.now().chain(now -> queueOf(id).chain(previous -> {
            Uni<JobScheduler> existing = previous == null ? Uni.createFrom().nullItem() : store.get(previous, id);
            return existing.chain(before -> {
                JobScheduler read = JobSchedulerJson.read(id, body, now, queues.keyPrefix(), defaults);
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
                return moved.chain(() -> scripts.run(SchedulerStateArgs.upsert(keys, id,
                                JobSchedulerJson.write(scheduler).toString(), next.orElse(-1))))
                        .chain(() -> redis.send(Request.cmd(Command.HSET).arg(index).arg(id).arg(keys.queue())))
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
        return redis.send(Request.cmd(Command.HGETALL).arg(index)).chain(reply -> {
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
                : remove(queues.keys(queue), id).call(() -> redis.send(Request.cmd(Command.HDEL).arg(index)
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
            return Uni.combine().all().unis(store.get(queue, id), store.now()).asTuple().chain(both -> {
                long next = both.getItem1() == null ? -1 : SchedulerTicks.next(both.getItem1(), both.getItem2()).orElse(-1);
                return scripts.run(SchedulerStateArgs.pause(keys, id, paused, next));
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
                : Uni.combine().all().unis(store.get(queue, id), store.now()).asTuple().chain(both -> {
                    JobScheduler scheduler = both.getItem1();
                    if (scheduler == null) {
                        return Uni.createFrom().nullItem();
                    }
                    long now = both.getItem2();
                    return addNow(scheduler, now).map(AddResult::jobId)
                            .call(jobId -> redis.send(Request.cmd(Command.HSET)
                                    .arg(queues.keys(queue).schedulerState(id)).arg("lastJobId").arg(jobId)))
                            .call(jobId -> redis.send(Request.cmd(Command.HINCRBY)
                                    .arg(queues.keys(queue).schedulerState(id)).arg(JobSchedulerView.RUN_NOW_JOBS)
                                    .arg(1)));
                }));
    }

    /** Adds a job of a scheduler outside its ticks (run now), under a {@code send} span, for {@code now} (ms). */
    private Uni<AddResult> addNow(JobScheduler scheduler, long now) {
        JobScheduler.Template template = scheduler.template();
        QueueKeys keys = queues.keys(template.queue());
        return adder.runSent(keys, traceParent -> adder.args(keys, template.name(), template.data(),
                template.options().withJobId(scheduler.id() + ":" + now), "", AddJobArgs.NO_PARENT_POLICY,
                scheduler.id(), Long.toString(now), traceParent));
    }

    private Uni<Integer> remove(QueueKeys keys, String id) {
        return scripts.run(SchedulerStateArgs.remove(keys, id)).map(Response::toInteger);
    }

    private Uni<JobSchedulerView> view(QueueKeys keys, String id) {
        Uni<Response> spec = redis.send(Request.cmd(Command.HGET).arg(keys.schedulers()).arg(id));
        Uni<Response> next = redis.send(Request.cmd(Command.ZSCORE).arg(keys.schedules()).arg(id));
        Uni<Response> state = redis.send(Request.cmd(Command.HGETALL).arg(keys.schedulerState(id)));
        return Uni.combine().all().unis(spec, next, state).asTuple().chain(all -> {
            if (all.getItem1() == null) {
                return Uni.createFrom().nullItem();
            }
            JsonNode stored = JobSchedulerJson.parse(json, all.getItem1().toString());
            Map<String, String> fields = Replies.toStringMap(all.getItem3());
            String lastJobId = fields.get("lastJobId");
            Uni<String> lastState = lastJobId == null ? Uni.createFrom().nullItem()
                    : redis.send(Request.cmd(Command.HGET).arg(keys.job(lastJobId)).arg("state"))
                            .map(reply -> reply == null ? null : reply.toString());
            Long nextTick = all.getItem2() == null ? null : all.getItem2().toLong();
            return lastState.map(lastJobState -> JobSchedulerView.of(id, keys.queue(), stored, nextTick, fields,
                    lastJobState));
        });
    }

    private Uni<String> queueOf(String id) {
        return redis.send(Request.cmd(Command.HGET).arg(index).arg(id))
                .map(queue -> queue == null ? null : queue.toString());
    }
}
