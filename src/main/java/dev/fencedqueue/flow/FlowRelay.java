package dev.fencedqueue.flow;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencedqueue.Failures;
import dev.fencedqueue.queue.AbortFollowUp;
import dev.fencedqueue.queue.EventsConfig;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobFinishedException;
import dev.fencedqueue.queue.JobKey;
import dev.fencedqueue.queue.JobNotFoundException;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.LuaScripts;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.WorkerListener;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Delivers a flow's child endings to their parents, and finishes what a crash left half done. A script that ends a
 * child leaves a notice in the child's queue ({@code parent-notices}); {@link #deliver} runs {@code childEnded} in the
 * parent's queue (maybe another Redis Cluster node), then removes the notice. A worker delivers at once the endings
 * it writes; {@link #sweep}, which every worker runs each stalled interval, delivers the rest (a process killed
 * between the two steps, a job ended by the stalled-job check), adds the children whose specs an add left behind, and
 * aborts the children of an aborted parent that a crash left running ({@code parent-aborts}).
 * Delivering twice changes nothing. It is what follows the abort of a job ({@link AbortFollowUp}) for every queue,
 * and what follows a job's ending and the stalled-job check for every worker ({@link WorkerListener}).
 */
@ApplicationScoped
public class FlowRelay implements AbortFollowUp, WorkerListener {

    private static final Logger LOG = Logger.getLogger(FlowRelay.class);

    private final LuaScripts scripts;
    private final SharedConnection redis;
    private final ObjectMapper json;
    private final FlowProducer producer;
    private final Queues queues;
    private final int maxStreamLength;
    private final int maxQueueEvents;
    /** Per queue, the pending children the last sweep saw: a spec still there at the next sweep was left behind. */
    private final Map<String, Set<String>> seenPending = new ConcurrentHashMap<>();

    /**
     * @param scripts the script registry, not {@code null}
     * @param redis the shared connection, not {@code null}
     * @param json Jackson, not {@code null}
     * @param producer adds the children an add left behind, not {@code null}
     * @param queues the parents' and the children's queues, by name (to abort the children of an aborted parent),
     *        not {@code null}
     * @param events the stream bounds ({@code fq.events.*}), not {@code null}
     */
    public FlowRelay(LuaScripts scripts, SharedConnection redis, ObjectMapper json, FlowProducer producer,
            Queues queues, EventsConfig events) {
        this.scripts = scripts;
        this.redis = redis;
        this.json = json;
        this.producer = producer;
        this.queues = queues;
        this.maxStreamLength = events.maxStreamLength();
        this.maxQueueEvents = events.queueStreamMaxLength();
    }

    /**
     * Delivers the ending of one child to its parent, when the child left a notice (and, when that failed the
     * parent, the parent's ending to its own parent).
     *
     * @param child the child's queue
     * @param childId the child's id
     * @return completes when delivered, or at once when there is no notice
     */
    public Uni<Void> deliver(QueueKeys child, String childId) {
        return redis.send(Request.cmd(Command.HGET).arg(child.parentNotices()).arg(childId))
                .chain(stored -> stored == null ? Uni.createFrom().voidItem() : deliver(child, childId, stored));
    }

    /** Delivers the ending of a child a worker wrote, in the background; what fails is left to the next sweep. */
    @Override
    public void ended(QueueKeys queue, Job job) {
        if (job.parentKey() != null) {
            deliver(queue, job.id()).subscribe().with(ignored -> {
            }, failure -> LOG.debugf("job %s: its parent will learn its ending at the next sweep: %s", job.id(),
                    Failures.describe(failure)));
        }
    }

    /** Sweeps the queue after its stalled-job check ({@link #sweep}), which ends children too. */
    @Override
    public Uni<Void> stalledChecked(QueueKeys queue) {
        return sweep(queue);
    }

    private Uni<Void> deliver(QueueKeys child, String childId, Response stored) {
        JsonNode notice = FlowSpecs.parse(json, stored.toString());
        JobKey parent = JobKey.parse(notice.get("parentKey").asText());
        QueueKeys keys = queues.keys(parent.queue());
        String parentId = parent.jobId();
        return scripts.run(new ChildEndedArgs(keys, parentId, child.job(childId),
                        notice.get("outcome").asText(), notice.get("value").asText(),
                        notice.path("policy").asText("fail"), maxStreamLength, maxQueueEvents))
                .chain(code -> code.toInteger() == 3 ? deliver(keys, parentId) : Uni.createFrom().voidItem())
                .chain(() -> redis.send(Request.cmd(Command.HDEL).arg(child.parentNotices()).arg(childId)))
                .replaceWithVoid();
    }

    /**
     * Delivers every notice a queue holds, and adds the children that an earlier sweep of this instance already
     * saw waiting in its pending-children hash (an add that did not finish).
     *
     * @param queue the queue
     * @return completes when done; a failed delivery is logged and tried again at the next sweep
     */
    public Uni<Void> sweep(QueueKeys queue) {
        Uni<Void> notices = redis.send(Request.cmd(Command.HKEYS).arg(queue.parentNotices()))
                .chain(ids -> Uni.join().all(Replies.elements(ids).stream().map(id -> deliver(queue, id.toString()))
                        .toList()).andCollectFailures())
                .replaceWithVoid();
        Uni<Void> pending = redis.send(Request.cmd(Command.HKEYS).arg(queue.pendingChildren()))
                .chain(keys -> {
                    Set<String> now = new HashSet<>();
                    Replies.elements(keys).forEach(key -> now.add(key.toString()));
                    Set<String> before = seenPending.put(queue.queue(), now);
                    Set<String> left = new HashSet<>(now);
                    left.retainAll(before == null ? Set.of() : before);
                    return producer.addPending(queue, List.copyOf(left));
                });
        Uni<Void> aborts = redis.send(Request.cmd(Command.HGETALL).arg(queue.parentAborts()))
                .chain(all -> {
                    Map<String, String> left = Replies.toStringMap(all);
                    return left.isEmpty() ? Uni.createFrom().voidItem() : Uni.join().all(left.entrySet().stream()
                            .map(abort -> aborted(queue, abort.getKey(), abort.getValue())).toList())
                            .andCollectFailures().replaceWithVoid();
                });
        return Uni.join().all(notices, pending, aborts).andCollectFailures().replaceWithVoid()
                .onFailure().invoke(failure -> LOG.debugf("flow sweep of queue %s: %s", queue.queue(),
                        Failures.describe(failure)))
                .onFailure().recoverWithNull();
    }

    /**
     * What follows the abort of a job: its children that have not ended are aborted too (each in its queue, and
     * theirs in turn), then the abort's record in {@code parent-aborts} is removed, and its own ending is delivered to
     * its parent. Doing it twice changes nothing.
     *
     * @param queue the job's queue
     * @param jobId the job's id
     * @param reason why it was aborted
     * @return completes when done (children already ended, or gone, are skipped)
     */
    @Override
    public Uni<Void> aborted(QueueKeys queue, String jobId, String reason) {
        Uni<Void> children = redis.send(Request.cmd(Command.SMEMBERS).arg(queue.dependencies(jobId)))
                .chain(members -> {
                    List<Uni<Void>> aborts = Replies.elements(members).stream().map(member -> {
                        JobKey child = JobKey.parse(member.toString());
                        return queues.lookup(child.queue()).abort(child.jobId(), "parent " + jobId + " aborted: " + reason)
                                .replaceWithVoid()
                                .onFailure(f -> f instanceof JobFinishedException || f instanceof JobNotFoundException)
                                .recoverWithNull();
                    }).toList();
                    return aborts.isEmpty() ? Uni.createFrom().voidItem()
                            : Uni.join().all(aborts).andCollectFailures().replaceWithVoid();
                });
        return children.chain(() -> redis.send(Request.cmd(Command.HDEL).arg(queue.parentAborts()).arg(jobId)))
                .chain(() -> deliver(queue, jobId));
    }
}
