package dev.fencedqueue.testing;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.queue.Replies;
import dev.fencedqueue.queue.SharedConnection;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Blocking reads of a queue's Redis state for tests (from the test thread, never an event loop): jobs,
 * their event streams, raw commands and the Redis clock.
 */
@ApplicationScoped
public class QueueInspector {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final Queues queues;
    private final JobEventStore store;
    private final SharedConnection redis;

    public QueueInspector(Queues queues, JobEventStore store, SharedConnection redis) {
        this.queues = queues;
        this.store = store;
        this.redis = redis;
    }

    /** @return a queue with a fresh random name, so that tests never share Redis keys */
    public JobQueue freshQueue() {
        return queues.queue("t-" + UUID.randomUUID());
    }

    /** @return the job, or {@code null} when there is none */
    public Job job(JobQueue queue, String jobId) {
        return queue.getJob(jobId).await().atMost(TIMEOUT);
    }

    /** @return every event of the job's stream, in order */
    public List<JobEvent> events(JobQueue queue, String jobId) {
        return store.readAll(queue.keys(), jobId, null).await().atMost(TIMEOUT);
    }

    /** @return the types of the job's events, in order */
    public List<String> eventTypes(JobQueue queue, String jobId) {
        return events(queue, jobId).stream().map(JobEvent::type).toList();
    }

    /** @return the job's terminal events ({@code completed}, {@code failed}, {@code aborted}) */
    public List<JobEvent> terminalEvents(JobQueue queue, String jobId) {
        return events(queue, jobId).stream().filter(JobEvent::isTerminal).toList();
    }

    /** @return the reply of a raw command ({@code null} for a Redis nil) */
    public Response send(Request request) {
        return redis.send(request).await().atMost(TIMEOUT);
    }

    /** @return the Redis clock, ms since the epoch */
    public long redisTimeMillis() {
        Response time = send(Request.cmd(Command.TIME));
        return time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000;
    }

    /** @return the ids of the jobs in the queue's active list */
    public List<String> activeIds(JobQueue queue) {
        Response reply = send(Request.cmd(Command.LRANGE).arg(queue.keys().active()).arg(0).arg(-1));
        return Replies.elements(reply).stream().map(Response::toString).toList();
    }

    /** @return the score of a job in the queue's delayed set (its due time, ms), or {@code null} */
    public Long delayedDue(JobQueue queue, String jobId) {
        Response score = send(Request.cmd(Command.ZSCORE).arg(queue.keys().delayed()).arg(jobId));
        return score == null ? null : (long) Double.parseDouble(score.toString());
    }
}
