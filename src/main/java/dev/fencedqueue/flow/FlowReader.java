package dev.fencedqueue.flow;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.fencedqueue.queue.ArchivedJob;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.JobKey;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reads a flow's parent's children (BullMQ's {@code getChildrenValues}, {@code getDependencies}), from Redis, else
 * from the archive once Redis dropped them. Every read fails with
 * {@link dev.fencedqueue.redis.RedisUnavailableException} when Redis is unreachable.
 */
@ApplicationScoped
public class FlowReader {

    private final SharedConnection redis;
    private final JobArchive archive;
    private final Queues queues;

    /**
     * @param redis the shared connection, not {@code null}
     * @param archive where finished jobs go once Redis no longer keeps them, not {@code null}
     * @param queues the children's queues, by name (to read a child Redis no longer has), not {@code null}
     */
    public FlowReader(SharedConnection redis, JobArchive archive, Queues queues) {
        this.redis = redis;
        this.archive = archive;
        this.queues = queues;
    }

    /**
     * One child of a parent.
     *
     * @param queue its queue
     * @param jobId its id
     * @param state its state, {@code null} when the job is gone (removed by its retention)
     * @param returnValue its return value (JSON) once completed, else {@code null}
     * @param failedReason why it failed or was aborted, else {@code null}
     * @param pending whether the parent still waits for it
     */
    public record Child(String queue, String jobId, JobState state, String returnValue, String failedReason,
            boolean pending) {
    }

    /**
     * @param parent the parent's queue
     * @param parentId the parent's id
     * @return child job key -> return value (JSON) of each completed child; empty when none
     */
    public Uni<Map<String, String>> childrenValues(QueueKeys parent, String parentId) {
        return hash(parent.processed(parentId)).chain(values -> values.isEmpty()
                ? archivedParent(parent, parentId).map(job -> job.map(ArchivedJob::childrenValues).orElse(values))
                : Uni.createFrom().item(values));
    }

    /**
     * @param parent the parent's queue
     * @param parentId the parent's id
     * @return child job key -> reason of each child that failed and that the parent ignored (or that failed it)
     */
    public Uni<Map<String, String>> failedChildren(QueueKeys parent, String parentId) {
        return hash(parent.failedChildren(parentId)).chain(failed -> failed.isEmpty()
                ? archivedParent(parent, parentId).map(job -> job.map(ArchivedJob::failedChildren).orElse(failed))
                : Uni.createFrom().item(failed));
    }

    /**
     * @param parent the parent's queue
     * @param parentId the parent's id
     * @return every child the parent ever had (a dependency removed on failure included), by queue and id; each read
     *         from its own queue, its result from the parent's records when the child is gone
     */
    public Uni<List<Child>> children(QueueKeys parent, String parentId) {
        // One read for a job without children, the common case; the parent's records only when there are some.
        return redis.send(Request.cmd(Command.SMEMBERS).arg(parent.children(parentId))).chain(members -> {
            List<String> keys = Replies.elements(members).stream().map(Response::toString).sorted().toList();
            if (!keys.isEmpty()) {
                return children(parent, parentId, keys);
            }
            return archivedParent(parent, parentId).chain(job -> job.isEmpty() || job.get().children().isEmpty()
                    ? Uni.createFrom().item(List.<Child>of()) : archivedChildren(job.get()));
        });
    }

    /** @return the children of an archived parent: none waits any more; each read from Redis, else the archive */
    private Uni<List<Child>> archivedChildren(ArchivedJob parent) {
        List<Uni<Child>> reads = new ArrayList<>();
        for (String key : parent.children().stream().sorted().toList()) {
            JobKey child = JobKey.parse(key);
            reads.add(queues.queue(child.queue()).getJob(child.jobId()).map(job -> new Child(child.queue(),
                    child.jobId(), job == null ? null : job.state(),
                    job != null && job.returnValue() != null ? job.returnValue() : parent.childrenValues().get(key),
                    job != null && job.failedReason() != null ? job.failedReason() : parent.failedChildren().get(key),
                    false)));
        }
        return Uni.join().all(reads).andFailFast();
    }

    /** @return the parent from the archive when Redis no longer has it, else empty */
    private Uni<Optional<ArchivedJob>> archivedParent(QueueKeys parent, String parentId) {
        if (!archive.isActive()) {
            return Uni.createFrom().item(Optional.empty());
        }
        return redis.send(Request.cmd(Command.EXISTS).arg(parent.job(parentId))).chain(exists ->
                exists.toLong() > 0 ? Uni.createFrom().item(Optional.<ArchivedJob>empty())
                        : archive.find(parent.queue(), parentId));
    }

    private Uni<List<Child>> children(QueueKeys parent, String parentId, List<String> keys) {
        Uni<Response> pending = redis.send(Request.cmd(Command.SMEMBERS).arg(parent.dependencies(parentId)));
        return Uni.combine().all().unis(pending, childrenValues(parent, parentId), failedChildren(parent, parentId))
                .asTuple().chain(all -> {
                    Set<String> waiting = new HashSet<>();
                    Replies.elements(all.getItem1()).forEach(key -> waiting.add(key.toString()));
                    List<Uni<Child>> reads = new ArrayList<>(keys.size());
                    for (String key : keys) {
                        JobKey child = JobKey.parse(key);
                        QueueKeys childKeys = queues.keys(child.queue());
                        reads.add(redis.send(Request.cmd(Command.HMGET).arg(childKeys.job(child.jobId()))
                                .arg("state").arg("returnvalue").arg("failedReason")).chain(fields -> fields.get(0) == null
                                        // Gone from Redis: moved to the archive, or removed by its retention.
                                        ? queues.queue(child.queue()).getJob(child.jobId()).map(job -> new Child(
                                                child.queue(), child.jobId(), job == null ? null : job.state(),
                                                job != null && job.returnValue() != null ? job.returnValue()
                                                        : all.getItem2().get(key),
                                                job != null && job.failedReason() != null ? job.failedReason()
                                                        : all.getItem3().get(key),
                                                waiting.contains(key)))
                                        : Uni.createFrom().item(new Child(child.queue(), child.jobId(),
                                                JobState.of(fields.get(0).toString()),
                                                fields.get(1) != null ? fields.get(1).toString() : all.getItem2().get(key),
                                                fields.get(2) != null ? fields.get(2).toString() : all.getItem3().get(key),
                                                waiting.contains(key)))));
                    }
                    return Uni.join().all(reads).andFailFast()
                            .map(list -> list.stream().sorted(Comparator.comparing(Child::jobId)).toList());
                });
    }

    private Uni<Map<String, String>> hash(String key) {
        return redis.send(Request.cmd(Command.HGETALL).arg(key)).map(Replies::toStringMap);
    }
}
