package dev.fencedqueue.testing;

import static dev.fencedqueue.testing.Timeouts.TIMEOUT;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.fencedqueue.events.JobEvent;
import dev.fencedqueue.events.JobEventStore;
import dev.fencedqueue.queue.Job;
import dev.fencedqueue.queue.JobQueue;
import dev.fencedqueue.queue.QueueEvent;
import dev.fencedqueue.queue.Queues;
import dev.fencedqueue.redis.Replies;
import dev.fencedqueue.redis.SharedConnection;
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

    /**
     * @param streamKey a job's event stream, ending with its terminal event
     * @return the bytes Redis used for the stream just before its last entry ({@code MEMORY USAGE}, every node
     *         counted): the same entries but the last, with the same ids, added again to a new key, which is then
     *         deleted
     */
    public long streamBytesBeforeItsLastEntry(String streamKey) {
        List<Response> entries = Replies.elements(send(Request.cmd(Command.XRANGE).arg(streamKey).arg("-").arg("+")));
        String copy = streamKey + ":before-last";
        try {
            for (Response entry : entries.subList(0, entries.size() - 1)) {
                Request add = Request.cmd(Command.XADD).arg(copy).arg(entry.get(0).toString());
                Replies.toStringMap(entry.get(1)).forEach((field, value) -> add.arg(field).arg(value));
                send(add);
            }
            return send(Request.cmd(Command.MEMORY).arg("USAGE").arg(copy).arg("SAMPLES").arg(0)).toLong();
        } finally {
            send(Request.cmd(Command.DEL).arg(copy));
        }
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

    /**
     * @return those of the queue's wait list, prioritized set, delayed set and active list that hold the job: where a
     *         worker takes it from or runs it; empty for a job that no worker will start again
     */
    public List<String> queuedIn(JobQueue queue, String jobId) {
        List<String> holding = new ArrayList<>();
        for (String list : List.of(queue.keys().waitList(), queue.keys().active())) {
            if (send(Request.cmd(Command.LPOS).arg(list).arg(jobId)) != null) {
                holding.add(list);
            }
        }
        for (String set : List.of(queue.keys().prioritized(), queue.keys().delayed())) {
            if (send(Request.cmd(Command.ZSCORE).arg(set).arg(jobId)) != null) {
                holding.add(set);
            }
        }
        return holding;
    }

    /** @return the score of a job in the queue's delayed set (its due time, ms), or {@code null} */
    public Long delayedDue(JobQueue queue, String jobId) {
        Response score = send(Request.cmd(Command.ZSCORE).arg(queue.keys().delayed()).arg(jobId));
        return score == null ? null : (long) Double.parseDouble(score.toString());
    }

    /** @return the score of a job in the queue's prioritized set, or {@code null} */
    public Long prioritizedScore(JobQueue queue, String jobId) {
        Response score = send(Request.cmd(Command.ZSCORE).arg(queue.keys().prioritized()).arg(jobId));
        return score == null ? null : (long) Double.parseDouble(score.toString());
    }

    /** @return every key of the queue ({@code SCAN} over its prefix), sorted */
    public List<String> keys(JobQueue queue) {
        List<String> found = new ArrayList<>();
        String cursor = "0";
        do {
            Response page = send(Request.cmd(Command.SCAN).arg(cursor).arg("MATCH").arg(queue.keys().prefix() + "*")
                    .arg("COUNT").arg(1000));
            cursor = page.get(0).toString();
            Replies.elements(page.get(1)).forEach(key -> found.add(key.toString()));
        } while (!"0".equals(cursor));
        found.sort(null);
        return found;
    }

    /**
     * @return whether the job's lock has expired: its hash's {@code lockedUntil} (ms) is not after the Redis clock, or
     *         it has none
     */
    public boolean lockExpired(JobQueue queue, String jobId) {
        Response until = send(Request.cmd(Command.HGET).arg(queue.keys().job(jobId)).arg("lockedUntil"));
        return until == null || until.toLong() <= redisTimeMillis();
    }

    /** @return the lock token of the job's current attempt, or {@code null} when it never ran */
    public String lockToken(JobQueue queue, String jobId) {
        Response token = send(Request.cmd(Command.HGET).arg(queue.keys().job(jobId)).arg("lockToken"));
        return token == null ? null : token.toString();
    }

    /** @return those of the job's own keys (hash, event stream, abort flag) that exist */
    public List<String> jobKeys(JobQueue queue, String jobId) {
        return List.of(queue.keys().job(jobId), queue.keys().events(jobId), queue.keys().abortFlag(jobId)).stream()
                .filter(key -> send(Request.cmd(Command.EXISTS).arg(key)).toInteger() == 1).toList();
    }

    /** @return whether a key exists */
    public boolean exists(String key) {
        return send(Request.cmd(Command.EXISTS).arg(key)).toInteger() == 1;
    }

    /** @return the fields of a hash ({@code HGETALL}), empty when the key does not exist */
    public Map<String, String> hash(String key) {
        return Replies.toStringMap(send(Request.cmd(Command.HGETALL).arg(key)));
    }

    /** @return every entry of the queue's event stream, in order (as {@link JobQueue#events} reads them) */
    public List<QueueEvent> queueEvents(JobQueue queue) {
        Response entries = send(Request.cmd(Command.XRANGE).arg(queue.keys().events()).arg("-").arg("+"));
        return Replies.elements(entries).stream().map(entry -> {
            Map<String, String> fields = new LinkedHashMap<>(Replies.toStringMap(entry.get(1)));
            String event = fields.remove("event");
            String jobId = fields.remove("jobId");
            return new QueueEvent(entry.get(0).toString(), event, jobId == null ? "" : jobId, fields);
        }).toList();
    }

    /**
     * @return when attempt {@code attemptsMade} of the job failed (Redis clock, ms): the time in the id of its
     *         {@code failed} queue event, stamped when the script appended it, after it read the clock
     * @throws AssertionError when the queue's event stream has no such event
     */
    public long failedAt(JobQueue queue, String jobId, int attemptsMade) {
        String attempt = Integer.toString(attemptsMade);
        return queueEvents(queue).stream().filter(event -> event.event().equals("failed")
                && event.jobId().equals(jobId) && attempt.equals(event.fields().get("attemptsMade")))
                .map(event -> Long.parseLong(event.id().substring(0, event.id().indexOf('-')))).findFirst()
                .orElseThrow(() -> new AssertionError("no failed event of attempt " + attemptsMade + " of " + jobId));
    }

    /** @return the {@code delay} (ms) of each {@code delayed} queue event of the job: the backoffs scripts scheduled */
    public List<Long> scheduledDelays(JobQueue queue, String jobId) {
        return queueEvents(queue).stream().filter(event -> event.event().equals("delayed")
                && event.jobId().equals(jobId)).map(event -> Long.parseLong(event.fields().get("delay"))).toList();
    }

    /**
     * @return when the job's lock expires (Redis clock, ms: its hash's {@code lockedUntil}); -2 when it has no lock (it
     *         never ran)
     */
    public long lockExpiresAt(JobQueue queue, String jobId) {
        Response until = send(Request.cmd(Command.HGET).arg(queue.keys().job(jobId)).arg("lockedUntil"));
        return until == null ? -2 : until.toLong();
    }

    /** @return the length of the queue's event stream ({@code XLEN}) */
    public long queueEventsLength(JobQueue queue) {
        return send(Request.cmd(Command.XLEN).arg(queue.keys().events())).toLong();
    }

    /** @return {@code used_memory} of {@code INFO memory}, bytes */
    public long usedMemory() {
        return infoField("memory", "used_memory");
    }

    /** @return a numeric field of an {@code INFO} section */
    public long infoField(String section, String field) {
        return Long.parseLong(infoText(section, field));
    }

    /** @return a field of an {@code INFO} section, as text */
    public String infoText(String section, String field) {
        String info = send(Request.cmd(Command.INFO).arg(section)).toString();
        return Arrays.stream(info.split("\r?\n")).filter(line -> line.startsWith(field + ":"))
                .map(line -> line.substring(field.length() + 1).trim()).findFirst()
                .orElseThrow(() -> new IllegalStateException("INFO " + section + " has no " + field));
    }

    /**
     * @param name a client name ({@code CLIENT SETNAME})
     * @param command a command, lower case
     * @return whether a connection of that name is blocked in that command
     */
    public boolean isBlocked(String name, String command) {
        return clients().stream().anyMatch(c -> name.equals(clientField(c, "name")) && command.equals(clientField(c, "cmd"))
                && clientField(c, "flags").contains("b"));
    }

    /** @return how many connections run (or last ran) {@code command}, lower case */
    public long clientsRunning(String command) {
        return clients().stream().filter(c -> command.equals(clientField(c, "cmd"))).count();
    }

    private List<String> clients() {
        return Arrays.asList(send(Request.cmd(Command.CLIENT).arg("LIST")).toString().split("\n"));
    }

    private static String clientField(String client, String name) {
        for (String pair : client.trim().split(" ")) {
            if (pair.startsWith(name + "=")) {
                return pair.substring(name.length() + 1);
            }
        }
        return "";
    }
}
