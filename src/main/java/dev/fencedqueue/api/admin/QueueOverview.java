package dev.fencedqueue.api.admin;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.fencedqueue.config.BulkConfig;
import dev.fencedqueue.config.ResearchConfig;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.JobState;
import dev.fencedqueue.queue.QueueFigures;
import dev.fencedqueue.queue.QueueKeys;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.worker.Worker;
import dev.fencedqueue.worker.WorkerManager;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reads what the operator API shows of a queue: its job counts, paused flag and limits, and which queues
 * this instance serves (the research queue and the queues of its workers).
 */
@ApplicationScoped
public class QueueOverview {

    private final Queues queues;
    private final String researchQueue;
    private final String chunkedQueue;
    private final WorkerManager workers;

    public QueueOverview(Queues queues, ResearchConfig research, BulkConfig bulk, WorkerManager workers) {
        this.queues = queues;
        this.researchQueue = research.queue();
        this.chunkedQueue = bulk.queue();
        this.workers = workers;
    }

    /** @return the names of the queues this instance serves, the research queue first, the others sorted */
    public List<String> servedQueues() {
        TreeSet<String> others = new TreeSet<>();
        for (Worker worker : workers.workers()) {
            others.add(worker.queue());
        }
        others.remove(researchQueue);
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(researchQueue), others.stream()).toList();
    }

    /**
     * @param queue the queue, must not be {@code null}
     * @return the queue's counts, paused flag and limits (all zero and absent for a queue without keys)
     */
    public Uni<QueueView> view(JobQueue queue) {
        QueueKeys keys = queue.keys();
        Uni<Response> meta = queues.redis().send(Request.cmd(Command.HMGET).arg(keys.meta()).arg("paused")
                .arg("concurrency").arg("limiterMax").arg("limiterDuration"));
        return Uni.combine().all().unis(queue.getJobCounts(), meta, queues.figures().oldestWaitingAge(keys),
                queues.figures().endedWithin(keys, Duration.ofMinutes(1))).asTuple()
                .map(all -> toView(queue.name(), all.getItem1(), all.getItem2(), all.getItem3(), all.getItem4()));
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
        QueueKeys keys = queue.keys();
        Request exists = Request.cmd(Command.EXISTS);
        for (String key : List.of(keys.meta(), keys.waitList(), keys.active(), keys.prioritized(), keys.delayed(),
                keys.completed(), keys.failed(), keys.idCounter(), keys.events())) {
            exists.arg(key);
        }
        return queues.redis().send(exists).chain(count -> count.toLong() > 0 ? view(queue)
                : Uni.createFrom().failure(new UnknownQueueException(queue.name())));
    }

    /**
     * @param queue the queue, must not be {@code null}
     * @return the queue's fleet-wide limits as stored in its meta hash
     */
    public Uni<QueueLimits> limits(JobQueue queue) {
        return view(queue).map(QueueView::limits);
    }

    private QueueView toView(String name, Map<JobState, Long> counts, Response meta, double oldestWaitingAge,
            QueueFigures.Ended lastMinute) {
        Map<String, Long> byState = new LinkedHashMap<>();
        counts.forEach((state, count) -> byState.put(state.value(), count));
        boolean paused = meta.get(0) != null;
        Integer concurrency = meta.get(1) == null ? null : meta.get(1).toInteger();
        QueueLimits.RateLimit rateLimit = meta.get(2) == null || meta.get(3) == null ? null
                : QueueLimits.RateLimit.of(meta.get(2).toInteger(), Duration.ofMillis(meta.get(3).toLong()));
        return new QueueView(name, servedQueues().contains(name), paused, byState, new QueueLimits(concurrency, rateLimit),
                chunkedQueue.equals(name), oldestWaitingAge, lastMinute);
    }
}
