package dev.fencedqueue.api.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Stream;

import dev.fencedqueue.bulk.BulkConfig;
import dev.fencedqueue.redis.RedisKeysConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.JobArchive;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.QueueFigures;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.SharedConnection;
import dev.fencedqueue.worker.WorkerManager;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reads what the operator API shows of a queue: its job counts, paused flag and limits, and which queues it lists:
 * those this service serves (the research queue, the queues of its processors and of this instance's workers), and
 * the queues the operator API added jobs to while nothing served them ({@code <prefix>:unserved-queues}), as long as
 * they hold keys. Its counts of finished jobs add those of the archive (kept a few seconds, {@link JobArchive#countFinished});
 * while the archive cannot be read, the counts are Redis's and the view says why.
 */
@ApplicationScoped
public class QueueOverview {

    private final Queues queues;
    private final SharedConnection redis;
    private final QueueFigures figures;
    private final String researchQueue;
    private final String chunkedQueue;
    private final WorkerManager workers;
    private final String unservedKey;
    private final JobArchive archive;

    public QueueOverview(Queues queues, SharedConnection redis, QueueFigures figures, RedisKeysConfig keys,
            ResearchConfig research, BulkConfig bulk, WorkerManager workers, JobArchive archive) {
        this.archive = archive;
        this.queues = queues;
        this.redis = redis;
        this.figures = figures;
        this.researchQueue = research.queue();
        this.chunkedQueue = bulk.queue();
        this.workers = workers;
        this.unservedKey = keys.keyPrefix() + ":unserved-queues";
    }

    /**
     * @return the names of the queues this service serves (it has a processor for them, see
     *         {@link WorkerManager#processedQueues()}), the research queue first, the others sorted
     */
    public List<String> servedQueues() {
        TreeSet<String> others = new TreeSet<>(workers.processedQueues());
        others.remove(researchQueue);
        return Stream.concat(Stream.of(researchQueue), others.stream()).toList();
    }

    /**
     * @return the served queues ({@link #servedQueues()}), then the queues jobs were added to while nothing served
     *         them ({@link #noteUnserved}) that still hold keys, sorted, each with {@code served: false}; a noted
     *         queue that is now served, or holds no key any more, is forgotten
     */
    public Uni<List<QueueView>> list() {
        List<String> served = servedQueues();
        return redis.send(Request.cmd(Command.SMEMBERS).arg(unservedKey)).chain(members -> {
            List<Uni<QueueView>> views = new ArrayList<>();
            served.forEach(name -> views.add(view(queues.queue(name))));
            TreeSet<String> noted = new TreeSet<>();
            members.forEach(member -> noted.add(member.toString()));
            for (String name : noted) {
                JobQueue queue = queues.lookup(name);
                views.add(served.contains(name) ? forget(name).replaceWith((QueueView) null)
                        : hasKeys(queue).chain(exists -> exists ? view(queue) : forget(name).replaceWith((QueueView) null)));
            }
            return Uni.join().all(views).andFailFast();
        }).map(views -> views.stream().filter(Objects::nonNull).toList());
    }

    /**
     * Notes queues that jobs were added to while nothing served them, so that {@link #list()} shows them.
     *
     * @param names queue names (valid ones), may be empty
     * @return completes once noted
     */
    public Uni<Void> noteUnserved(Collection<String> names) {
        if (names.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        Request add = Request.cmd(Command.SADD).arg(unservedKey);
        names.forEach(add::arg);
        return redis.send(add).replaceWithVoid();
    }

    private Uni<Void> forget(String name) {
        return redis.send(Request.cmd(Command.SREM).arg(unservedKey).arg(name)).replaceWithVoid();
    }

    /**
     * @param queue the queue, must not be {@code null}
     * @return the queue's counts, paused flag and limits (all zero and absent for a queue without keys)
     */
    public Uni<QueueView> view(JobQueue queue) {
        QueueKeys keys = queue.keys();
        Uni<Response> meta = redis.send(Request.cmd(Command.HMGET).arg(keys.meta()).arg("paused")
                .arg("concurrency").arg("limiterMax").arg("limiterDuration"));
        return Uni.combine().all().unis(queue.getJobCounts(), meta, figures.oldestWaitingAge(keys),
                figures.endedWithin(keys, Duration.ofMinutes(1)), archived(queue.name())).asTuple()
                .map(all -> toView(queue.name(), all.getItem1(), all.getItem2(), all.getItem3(), all.getItem4(),
                        all.getItem5()));
    }

    /** @return the queue's finished jobs in the archive, why they could not be counted, or {@code null} without one */
    private Uni<ArchiveCounts> archived(String queue) {
        if (!archive.isActive()) {
            return Uni.createFrom().nullItem();
        }
        return Uni.combine().all().unis(archive.countFinished(queue, JobState.COMPLETED),
                archive.countFinished(queue, JobState.FAILED)).asTuple()
                .map(both -> new ArchiveCounts(both.getItem1(), both.getItem2(), null))
                .onFailure().recoverWithItem(failure -> ArchiveCounts.unreadable());
    }

    /**
     * Like {@link #view}, for a queue that must exist: one this instance serves, or one with at least one
     * of its queue-level keys in Redis.
     *
     * @param queue the queue, must not be {@code null}
     * @return the view; fails with {@link UnknownQueueException} when the queue has no key and is not served here
     */
    public Uni<QueueView> requireView(JobQueue queue) {
        if (servedQueues().contains(queue.name())) {
            return view(queue);
        }
        return hasKeys(queue).chain(exists -> exists ? view(queue)
                : Uni.createFrom().failure(new UnknownQueueException(queue.name())));
    }

    /** @return whether the queue has at least one of its queue-level keys in Redis */
    private Uni<Boolean> hasKeys(JobQueue queue) {
        QueueKeys keys = queue.keys();
        Request exists = Request.cmd(Command.EXISTS);
        for (String key : List.of(keys.meta(), keys.waitList(), keys.active(), keys.prioritized(), keys.delayed(),
                keys.waitingChildren(), keys.completed(), keys.failed(), keys.idCounter(), keys.events())) {
            exists.arg(key);
        }
        return redis.send(exists).map(count -> count.toLong() > 0);
    }

    /**
     * @param queue the queue, must not be {@code null}
     * @return the queue's fleet-wide limits as stored in its meta hash
     */
    public Uni<QueueLimits> limits(JobQueue queue) {
        return view(queue).map(QueueView::limits);
    }

    private QueueView toView(String name, Map<JobState, Long> counts, Response meta, double oldestWaitingAge,
            QueueFigures.Ended lastMinute, ArchiveCounts archived) {
        Map<String, Long> byState = new LinkedHashMap<>();
        counts.forEach((state, count) -> byState.put(state.value(), count));
        if (archived != null && archived.completed() != null) {
            byState.merge(JobState.COMPLETED.value(), archived.completed(), Long::sum);
            byState.merge(JobState.FAILED.value(), archived.failed(), Long::sum);
        }
        boolean paused = meta.get(0) != null;
        Integer concurrency = meta.get(1) == null ? null : meta.get(1).toInteger();
        QueueLimits.RateLimit rateLimit = meta.get(2) == null || meta.get(3) == null ? null
                : QueueLimits.RateLimit.of(meta.get(2).toInteger(), Duration.ofMillis(meta.get(3).toLong()));
        return new QueueView(name, servedQueues().contains(name), paused, byState, new QueueLimits(concurrency, rateLimit),
                chunkedQueue.equals(name), oldestWaitingAge, lastMinute, archived);
    }
}
